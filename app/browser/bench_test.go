package browser_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser"
)

// BenchmarkBrowser measures, in one run (make bench uses -benchtime 1x): the cold spawn of a user's
// Chromium (exec to a usable page), the latency of a warm browser_read of a local page (p50 and p99
// over WORKBENCH_BENCH_READS calls, default 200, beside a plain HTTP GET of the same page as the
// baseline), and the memory an idle session holds (proportional set size summed over its processes,
// measured on the session that served the reads after two seconds alone).
// It prints one summary line: browser spawns=… cold_spawn_ms_p50=… read_p50_ms=… read_p99_ms=… …
func BenchmarkBrowser(b *testing.B) {
	reads := 200
	if v, err := strconv.Atoi(os.Getenv("WORKBENCH_BENCH_READS")); err == nil && v > 0 {
		reads = v
	}
	const spawns = 5
	for range b.N {
		e := newEnv(b, browser.Options{})
		srv := site(b).URL
		ctx := context.Background()

		// Cold spawns: a new user each, a page opened, then the session stopped (not timed).
		var spawn []time.Duration
		for range spawns {
			user := uuid.New()
			start := time.Now()
			sess, err := e.svc.Acquire(ctx, user)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sess.Page(ctx); err != nil {
				b.Fatal(err)
			}
			spawn = append(spawn, time.Since(start))
			sess.Release()
			if err := e.svc.Reset(ctx, user); err != nil {
				b.Fatal(err)
			}
		}

		// Warm reads.
		user := uuid.New()
		if _, err := e.call(user, "browser_navigate", fmt.Sprintf(`{"url":%q}`, srv+"/")); err != nil {
			b.Fatal(err)
		}
		var read, get []time.Duration
		for range reads {
			start := time.Now()
			if _, err := e.call(user, "browser_read", `{}`); err != nil {
				b.Fatal(err)
			}
			read = append(read, time.Since(start))
			start = time.Now()
			resp, err := http.Get(srv + "/")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			get = append(get, time.Since(start))
		}
		// Idle memory: the session that served the reads, left alone with its page for two seconds.
		time.Sleep(2 * time.Second)
		idle := e.svc.Pool().MemoryBytes(user.String())
		ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
		p50, p99 := quantile(read, 0.5), quantile(read, 0.99)
		mib := float64(idle) / (1 << 20)
		fmt.Printf("browser spawns=%d cold_spawn_ms_p50=%.0f cold_spawn_ms_max=%.0f reads=%d read_p50_ms=%.2f read_p99_ms=%.2f http_get_p50_ms=%.2f read_vs_get_p50=%.1f idle_session_pss_mib=%.1f\n",
			spawns, ms(quantile(spawn, 0.5)), ms(slices.Max(spawn)), reads, ms(p50), ms(p99), ms(quantile(get, 0.5)),
			float64(p50)/float64(quantile(get, 0.5)), mib)
		b.ReportMetric(ms(quantile(spawn, 0.5)), "cold_spawn_ms")
		b.ReportMetric(ms(p50), "read_p50_ms")
		b.ReportMetric(ms(p99), "read_p99_ms")
		b.ReportMetric(mib, "idle_MiB")
	}
}

func quantile(ds []time.Duration, q float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
