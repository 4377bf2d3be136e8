package auditchain_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/eventstore"
)

// benchEvents is how many events BenchmarkVerify builds: WORKBENCH_BENCH_CHAIN_EVENTS, default 1,000,000.
func benchEvents(b *testing.B) int {
	if s := os.Getenv("WORKBENCH_BENCH_CHAIN_EVENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("WORKBENCH_BENCH_CHAIN_EVENTS=%q", s)
		}
		return n
	}
	return 1_000_000
}

func benchBackends(b *testing.B, f func(b *testing.B, be backend)) {
	b.Run("sqlite", func(b *testing.B) { f(b, openSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { f(b, openPostgres(b)) })
}

// BenchmarkVerify builds a log of benchEvents events (1,000 per append, tool-run-sized bodies), chains
// and seals it with the sealer, then verifies it from a freshly opened store. It reports the events per
// second of the chaining (chain_ev/s) and of the verification (verify_ev/s).
func BenchmarkVerify(b *testing.B) {
	benchBackends(b, func(b *testing.B, be backend) {
		ctx := context.Background()
		n := benchEvents(b)
		const per = 1000
		body, _ := json.Marshal(map[string]any{"tool": "github_list_repos", "integration": "github", "outcome": "ok",
			"args_sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", "duration_ms": 182})
		start := time.Now()
		for i := 0; i < n; i += per {
			evs := make([]eventstore.EventData, 0, per)
			for j := i; j < min(i+per, n); j++ {
				evs = append(evs, eventstore.EventData{ID: uuid.New(), Type: "execution.tool_executed", SchemaVersion: 1, Data: body,
					Metadata: eventstore.Metadata{Actor: "00000000-0000-4000-8000-00000000a0a0", MCPClient: "client", CorrelationID: strconv.Itoa(j), Time: time.Now().UTC()}})
			}
			if _, err := be.store.Append(ctx, fmt.Sprintf("bench-%d", i/per), eventstore.NoStream, evs...); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%s: built %d events in %s", be.name, n, time.Since(start).Round(time.Millisecond))
		key := newKey(b)
		s, err := auditchain.NewSealer(be.db, be.store, key, &auditchain.SealerOptions{Gate: gateOf(be)})
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		start = time.Now()
		st, err := s.Sync(ctx, true)
		if err != nil || st.Head.Seq != int64(n) {
			b.Fatalf("sync: %+v %v", st, err)
		}
		chain := time.Since(start)
		start = time.Now()
		rep, err := auditchain.Verify(ctx, be.db, be.fresh(b), pubOf(key), auditchain.Range{}, nil)
		if err != nil || !rep.OK() || rep.Events != int64(n) {
			b.Fatalf("verify: %+v %v", rep, err)
		}
		verify := time.Since(start)
		b.StopTimer()
		b.ReportMetric(float64(n)/chain.Seconds(), "chain_ev/s")
		b.ReportMetric(float64(n)/verify.Seconds(), "verify_ev/s")
		b.Logf("%s: %d events chained in %s (%.0f/s), verified in %s (%.0f/s), %d seals", be.name, n,
			chain.Round(time.Millisecond), float64(n)/chain.Seconds(), verify.Round(time.Millisecond), float64(n)/verify.Seconds(), rep.Seals)
	})
}

// BenchmarkAppendWithChain measures append throughput (16 concurrent appenders, one event per append,
// as tool calls do) with the sealer off and on, in alternating rounds of the same run, and reports the
// ratio on/off (target >= 0.9). Before each "on" period the sealer is caught up outside the timing, so
// the period measures the steady state: the sealer, with the server's settings, following the appends as
// they commit.
func BenchmarkAppendWithChain(b *testing.B) {
	benchBackends(b, func(b *testing.B, be backend) {
		ctx := context.Background()
		s, err := auditchain.NewSealer(be.db, be.store, newKey(b), &auditchain.SealerOptions{Gate: gateOf(be)})
		if err != nil {
			b.Fatal(err)
		}
		const writers, rounds = 16, 8
		period := time.Second
		measure := func() int64 {
			var count atomic.Int64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					stream := "agent-" + uuid.NewString()
					for i := 1; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						if _, err := be.store.Append(ctx, stream, eventstore.Any, event(i)); err != nil {
							b.Error(err)
							return
						}
						count.Add(1)
					}
				}()
			}
			time.Sleep(period)
			close(stop)
			wg.Wait()
			return count.Load()
		}
		var off, on int64
		b.ResetTimer()
		for r := 0; r < rounds; r++ {
			for _, chained := range []bool{r%2 == 1, r%2 == 0} {
				if !chained {
					off += measure()
					continue
				}
				if _, err := s.Sync(ctx, false); err != nil {
					b.Fatal(err)
				}
				runCtx, cancel := context.WithCancel(ctx)
				done := make(chan struct{})
				go func() { defer close(done); _ = s.Run(runCtx) }()
				on += measure()
				cancel()
				<-done
			}
		}
		b.StopTimer()
		secs := period.Seconds() * rounds
		b.ReportMetric(float64(off)/secs, "off_ev/s")
		b.ReportMetric(float64(on)/secs, "on_ev/s")
		b.ReportMetric(float64(on)/float64(off), "on/off")
		b.Logf("%s: appends/s chain off %.0f, on %.0f, ratio %.3f", be.name, float64(off)/secs, float64(on)/secs, float64(on)/float64(off))
	})
}
