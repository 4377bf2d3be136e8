package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
)

// balancer is the load balancer in front of the replicas, as an ingress does it: round robin over the
// replicas in rotation; a replica is taken out of rotation before it is told to stop, and told only
// once the requests it was given have come back (what a preStop hook and endpoint removal achieve).
type balancer struct {
	mu       sync.Mutex
	backends []*backendRef
	next     int
}

type backendRef struct {
	r        *replica
	proxy    *httputil.ReverseProxy
	inFlight atomic.Int64
	drained  chan struct{} // closed when out of rotation and idle
	out      bool
}

func (b *balancer) add(r *replica) {
	u, _ := url.Parse(r.base)
	ref := &backendRef{r: r, proxy: httputil.NewSingleHostReverseProxy(u), drained: make(chan struct{})}
	b.mu.Lock()
	b.backends = append(b.backends, ref)
	b.mu.Unlock()
}

// remove takes r out of rotation and waits until no request it was given is in flight.
func (b *balancer) remove(r *replica) {
	b.mu.Lock()
	var ref *backendRef
	for i, x := range b.backends {
		if x.r == r {
			ref = x
			b.backends = append(b.backends[:i], b.backends[i+1:]...)
			break
		}
	}
	ref.out = true
	idle := ref.inFlight.Load() == 0
	b.mu.Unlock()
	if !idle {
		<-ref.drained
	}
}

func (b *balancer) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b.mu.Lock()
	if len(b.backends) == 0 {
		b.mu.Unlock()
		http.Error(w, "no backend", http.StatusBadGateway)
		return
	}
	ref := b.backends[b.next%len(b.backends)]
	b.next++
	ref.inFlight.Add(1)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		if ref.inFlight.Add(-1) == 0 && ref.out {
			select {
			case <-ref.drained:
			default:
				close(ref.drained)
			}
		}
		b.mu.Unlock()
	}()
	ref.proxy.ServeHTTP(w, req)
}

// Each of three replicas is replaced in turn under load, the replacement serving before the old one
// is taken out of rotation and stopped with SIGTERM: no call fails, every old replica exits cleanly
// after draining, and every acknowledged call is in the log.
func TestRollingRestart(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 6, nil) // three replicas, then their three replacements
	ada := c.user("ada@example.com")
	lb := &balancer{}
	for _, r := range c.replicas[:3] {
		c.startReady(r)
		lb.add(r)
	}
	front := startFront(t, lb)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	const clients = 6
	headers := make([]http.Header, clients)
	for i := range headers {
		headers[i] = rawSession(t, client, front+"/mcp", ada.Key)
	}
	body := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":"rolling"}}]}}}`)
	stop := make(chan struct{})
	var ok atomic.Int64
	var failures []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, _, rb, err := post(client, front+"/mcp", headers[i], body)
				if err != nil || status != http.StatusOK || !strings.Contains(string(rb), `{\"message\":\"rolling\"}`) {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("client %d: %d %v %.200s", i, status, err, rb))
					mu.Unlock()
					continue
				}
				ok.Add(1)
			}
		}()
	}
	waitCalls := func(n int64) {
		deadline := time.Now().Add(60 * time.Second)
		for ok.Load() < n {
			if time.Now().After(deadline) {
				t.Fatalf("only %d calls succeeded, want %d", ok.Load(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitCalls(20)
	for i := range 3 {
		old, repl := c.replicas[i], c.replicas[3+i]
		c.startReady(repl)
		lb.add(repl)
		lb.remove(old)
		old.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck
		select {
		case <-old.done:
			if old.err != nil {
				t.Errorf("replica %s exited with %v after SIGTERM", old.name, old.err)
			}
		case <-time.After(45 * time.Second):
			t.Fatalf("replica %s did not exit after SIGTERM", old.name)
		}
		waitCalls(ok.Load() + 20) // the remaining replicas keep serving
	}
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(failures) > 0 {
		t.Fatalf("%d calls failed during the rolling restart (of %d ok), first: %s", len(failures), ok.Load(), failures[0])
	}
	// Every acknowledged call was recorded before it was answered. On PostgreSQL a commit becomes
	// readable once older transactions have ended, so the count is read until it covers them (bounded).
	eventually(t, "every acknowledged call in the log", 20*time.Second, func() error {
		recorded := countExecutions(t, c.admin.Store)[""]
		if recorded < ok.Load() {
			return fmt.Errorf("%d executions recorded, %d acknowledged", recorded, ok.Load())
		}
		return nil
	})
	t.Logf("%d calls, none failed, over three replacements", ok.Load())
}

// startFront serves h on a loopback port for the test's duration.
func startFront(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := &http.Server{Handler: h}
	ln := listenLoopback(t)
	go srv.Serve(ln) //nolint:errcheck
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func listenLoopback(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// countExecutions counts the log's tool executions by actor ("" holds the total).
func countExecutions(t *testing.T, store eventstore.Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	from := eventstore.Start
	for {
		page, err := store.ReadAll(t.Context(), from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range page {
			if ev.Type == execution.TypeToolExecuted {
				out[ev.Metadata.Actor]++
				out[""]++
			}
		}
		if len(page) < 1000 {
			return out
		}
		from = page[len(page)-1].Position
	}
}
