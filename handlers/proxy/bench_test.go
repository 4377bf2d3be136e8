package proxy_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
)

const benchClients = 32

// load is one measured phase: how many calls completed and their latencies.
type load struct {
	calls     int
	elapsed   time.Duration
	cpu       time.Duration // the process's user+system CPU time over the phase
	latencies []time.Duration
}

// cpuPerCall is the process's CPU time per call, in microseconds: less at the mercy of other load on
// a shared machine than rates and latencies.
func (l load) cpuPerCall() float64 { return float64(l.cpu.Microseconds()) / float64(max(l.calls, 1)) }

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (l load) perSecond() float64 { return float64(l.calls) / l.elapsed.Seconds() }

func (l load) quantile(q float64) time.Duration {
	if len(l.latencies) == 0 {
		return 0
	}
	return l.latencies[min(len(l.latencies)-1, int(q*float64(len(l.latencies))))]
}

func (l *load) add(o load) {
	l.calls += o.calls
	l.elapsed += o.elapsed
	l.cpu += o.cpu
	l.latencies = append(l.latencies, o.latencies...)
}

// runLoad runs clients goroutines calling call back to back for d.
func runLoad(clients int, d time.Duration, call func() error) (load, error) {
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	var wg sync.WaitGroup
	start, cpu0 := time.Now(), processCPU()
	deadline := start.Add(d)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			for time.Now().Before(deadline) {
				t0 := time.Now()
				if err := call(); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	l := load{calls: len(all), elapsed: time.Since(start), cpu: processCPU() - cpu0, latencies: all}
	slices.Sort(l.latencies)
	return l, firstErr
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkProxy measures requests through /c/<integration>/ (token check, credential from the
// SQLite-backed credential service, injection, forwarding, an audit event per request) against a
// local fake provider, beside the same load sent to that provider directly (with the credential
// already in hand), in turns within the same run so that noise on the shared machine falls on both.
// Each phase lasts WORKBENCH_BENCH_SECONDS (default 10) in all, split over three rounds; it runs once
// per provider answer time (0 and 50 ms, or WORKBENCH_BENCH_PROVIDER_MS alone) and prints one line
// each. A bare httputil.ReverseProxy that swaps the header (no token, credential service or audit)
// is measured in the same turns: vs_bare_reverse_proxy is the proxy's rate over it, cpu_us_above_bare
// the proxy's CPU per request above it, added_p50_vs_bare_ms its median latency above it.
// audit_wait_p50_ms is the median time a request waits for its RequestForwarded record to be durable
// (its group commit) before it leaves for the provider, and events_per_commit the group commit's mean
// size over the proxy's turns.
//
//	go test -run '^$' -bench BenchmarkProxy -benchtime 1x -count 1 ./handlers/proxy/
func BenchmarkProxy(b *testing.B) {
	d := 10 * time.Second
	if s, err := strconv.Atoi(os.Getenv("WORKBENCH_BENCH_SECONDS")); err == nil && s > 0 {
		d = time.Duration(s) * time.Second
	}
	const rounds = 3
	// The provider's own time to answer: none (the proxy's pure overhead, CPU-bound on a small
	// machine, where the proxy does twice the HTTP work of the direct call), and 50 ms, still quicker
	// than a real provider API across the internet.
	delays := []time.Duration{0, 50 * time.Millisecond}
	if s, err := strconv.Atoi(os.Getenv("WORKBENCH_BENCH_PROVIDER_MS")); err == nil && s >= 0 {
		delays = []time.Duration{time.Duration(s) * time.Millisecond}
	}
	// The time each request's RequestForwarded record takes to be durable (its group commit), which
	// every request waits for before it leaves: audit_wait_p50_ms beside added_p50_vs_bare_ms says how
	// much of the added latency it is.
	waits := &forwardedWaits{}
	e := newEnv(b, envOptions{wrapStore: func(a curlsessions.Appender) curlsessions.Appender { waits.next = a; return waits }})
	stats := e.store.(interface{ Stats() eventstore.BatchStats })
	s, err := e.sessions.Mint(e.ctx, mintFor(e))
	if err != nil {
		b.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * benchClients, MaxIdleConnsPerHost: 4 * benchClients, DisableCompression: true}}
	defer client.CloseIdleConnections()

	get := func(url, header, value string) error {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		req.Header.Set(header, value)
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, benchBody) {
			return fmt.Errorf("status %d: %s", resp.StatusCode, body)
		}
		return nil
	}
	viaProxy := func() error { return get(e.srv.URL+"/c/keyed/bench", "Authorization", "Bearer "+s.Token) }
	direct := func() error { return get(e.api.srv.URL+"/base/bench", "X-Api-Key", apiKey) }
	// The floor of any proxy: a bare httputil.ReverseProxy that swaps the header and forwards, no
	// token, credential service or audit. On a small machine where client, proxy and provider share
	// the cores, the extra HTTP hop alone costs about as much CPU as the direct call.
	upstreamURL, _ := url.Parse(e.api.srv.URL)
	bareTransport := http.DefaultTransport.(*http.Transport).Clone()
	bareTransport.MaxIdleConnsPerHost = 64
	bare := httptest.NewServer(&httputil.ReverseProxy{Transport: bareTransport, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(upstreamURL)
		pr.Out.Header.Del("Authorization")
		pr.Out.Header.Set("X-Api-Key", apiKey)
	}})
	defer bare.Close()
	viaBare := func() error { return get(bare.URL+"/base/bench", "Authorization", "Bearer x") }

	audited := 0 // proxied requests so far, each of which must be in the log
	b.ResetTimer()
	for range b.N {
		for _, delay := range delays {
			e.api.benchDelay.Store(int64(delay))
			warm := min(d/5, 2*time.Second)
			if _, err := runLoad(benchClients, warm, direct); err != nil {
				b.Fatalf("direct warm-up: %v", err)
			}
			warmed, err := runLoad(benchClients, warm, viaProxy)
			if err != nil {
				b.Fatalf("proxy warm-up: %v", err)
			}
			audited += warmed.calls
			if _, err := runLoad(benchClients, warm, viaBare); err != nil {
				b.Fatalf("bare proxy warm-up: %v", err)
			}
			var base, got, floor load
			var commits, written int64
			waits.reset()
			for range rounds {
				l, err := runLoad(benchClients, d/rounds, direct)
				if err != nil {
					b.Fatalf("direct: %v", err)
				}
				base.add(l)
				waits.start()
				st0 := stats.Stats()
				if l, err = runLoad(benchClients, d/rounds, viaProxy); err != nil {
					b.Fatalf("proxy: %v", err)
				}
				st1 := stats.Stats()
				got.add(l)
				commits, written = commits+st1.Commits-st0.Commits, written+st1.Events-st0.Events
				if l, err = runLoad(benchClients, d/rounds, viaBare); err != nil {
					b.Fatalf("bare proxy: %v", err)
				}
				floor.add(l)
			}
			slices.Sort(base.latencies)
			slices.Sort(got.latencies)
			slices.Sort(floor.latencies)
			// Every proxied request was audited: one RequestProxied event each.
			audited += got.calls
			if n := len(events[curlsession.RequestProxied](b, e, curlsession.TypeRequestProxied, audited)); n != audited {
				b.Fatalf("%d proxied requests but %d RequestProxied events", audited, n)
			}
			ratio := got.perSecond() / base.perSecond()
			added := ms(got.quantile(0.5)) - ms(base.quantile(0.5))
			fmt.Printf("proxy clients=%d provider_ms=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f direct_rps=%.0f direct_p50_ms=%.2f direct_p99_ms=%.2f ratio=%.2f added_p50_ms=%.2f cpu_us_per_req=%.0f direct_cpu_us_per_req=%.0f bare_rps=%.0f bare_p50_ms=%.2f bare_ratio=%.2f bare_cpu_us_per_req=%.0f vs_bare_reverse_proxy=%.2f cpu_us_above_bare=%.0f added_p50_vs_bare_ms=%.2f audit_wait_p50_ms=%.2f events_per_commit=%.1f\n",
				benchClients, delay.Milliseconds(), got.perSecond(), ms(got.quantile(0.5)), ms(got.quantile(0.99)), base.perSecond(), ms(base.quantile(0.5)), ms(base.quantile(0.99)), ratio, added, got.cpuPerCall(), base.cpuPerCall(),
				floor.perSecond(), ms(floor.quantile(0.5)), floor.perSecond()/base.perSecond(), floor.cpuPerCall(),
				got.perSecond()/floor.perSecond(), got.cpuPerCall()-floor.cpuPerCall(), ms(got.quantile(0.5))-ms(floor.quantile(0.5)),
				ms(waits.p50()), float64(written)/float64(max(commits, 1)))
			unit := "_provider" + strconv.FormatInt(delay.Milliseconds(), 10) + "ms"
			b.ReportMetric(got.perSecond(), "req/s"+unit)
			b.ReportMetric(ms(got.quantile(0.5)), "p50_ms"+unit)
			b.ReportMetric(base.perSecond(), "direct_req/s"+unit)
			b.ReportMetric(ratio, "ratio"+unit)
			b.ReportMetric(added, "added_p50_ms"+unit)
			b.ReportMetric(got.perSecond()/floor.perSecond(), "vs_bare_reverse_proxy"+unit)
		}
	}
}

// forwardedWaits times the appends of RequestForwarded records while the proxy's load runs.
type forwardedWaits struct {
	next curlsessions.Appender
	on   atomic.Bool
	mu   sync.Mutex
	all  []time.Duration
}

func (f *forwardedWaits) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if !f.on.Load() || len(events) != 1 || events[0].Type != curlsession.TypeRequestForwarded {
		return f.next.Append(ctx, stream, expected, events...)
	}
	t0 := time.Now()
	pos, err := f.next.Append(ctx, stream, expected, events...)
	d := time.Since(t0)
	f.mu.Lock()
	f.all = append(f.all, d)
	f.mu.Unlock()
	return pos, err
}

// start times the appends from now on; stop is implied by the next phase's reset or p50.
func (f *forwardedWaits) start() { f.on.Store(true) }

func (f *forwardedWaits) reset() {
	f.on.Store(false)
	f.mu.Lock()
	f.all = f.all[:0]
	f.mu.Unlock()
}

func (f *forwardedWaits) p50() time.Duration {
	f.on.Store(false)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.all) == 0 {
		return 0
	}
	slices.Sort(f.all)
	return f.all[len(f.all)/2]
}
