package proxy_test

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"sync"
	"testing"

	"github.com/workbench/workbench/internal/ssrf"
)

// tableResolver answers lookups from its table, never from the system resolver, and counts them
// (the manifests name the fake provider "localhost", the one name an http:// base URL may use in tests).
type tableResolver struct {
	mu      sync.Mutex
	addrs   map[string][]netip.Addr
	lookups int
}

func (r *tableResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lookups++
	if a, ok := r.addrs[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (r *tableResolver) set(host, addr string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addrs[host] = []netip.Addr{netip.MustParseAddr(addr)}
}

func (r *tableResolver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lookups
}

// The proxy sends through the SSRF-guarded transport Main gives it (cloned, with its dialer): a
// connection it keeps is reused without resolving the provider's name again, and every new
// connection is resolved and checked, so a name that now points at a private address is refused on
// the next connection, before a byte leaves. The proxy adds no Accept-Encoding of its own (it never
// decompresses).
func TestUpstreamConnectionsAreCheckedWhenDialled(t *testing.T) {
	res := &tableResolver{addrs: map[string][]netip.Addr{}}
	res.set("localhost", "127.0.0.1")
	e := newEnv(t, envOptions{apiHost: "localhost", transport: ssrf.NewTransport(ssrf.Options{AllowLoopback: true, Resolver: res})})
	s := e.mint(t, e.user, "keyed")

	for range 5 {
		if status, _, body := e.do(t, "GET", "/c/keyed/reuse", s.Token, nil, nil); status != 200 {
			t.Fatalf("%d %s", status, body)
		}
	}
	if n := res.count(); n != 1 {
		t.Fatalf("5 requests on one kept connection resolved the provider %d times, want 1", n)
	}
	// A caller that asks for no encoding (Go's client adds gzip unless told not to).
	plain := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	defer plain.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(e.ctx, "GET", e.srv.URL+"/c/keyed/plain", nil)
	req.Header.Set("Authorization", "Bearer "+s.Token)
	resp, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := e.api.last(t).Header.Get("Accept-Encoding"); resp.StatusCode != 200 || got != "" {
		t.Fatalf("%d; the provider got Accept-Encoding %q that the caller never sent", resp.StatusCode, got)
	}
	// The provider closes this connection after its answer: the next request dials again.
	if status, _, body := e.do(t, "GET", "/c/keyed/close", s.Token, nil, nil); status != 200 || string(body) != "bye" {
		t.Fatalf("%d %s", status, body)
	}
	res.set("localhost", "10.0.0.1")
	before := e.api.count()
	status, _, body := e.do(t, "GET", "/c/keyed/reuse", s.Token, nil, nil)
	if status != 502 || e.api.count() != before {
		t.Fatalf("a new connection to a name now private: %d %s, provider requests %d -> %d", status, body, before, e.api.count())
	}
	if n := res.count(); n != 2 {
		t.Fatalf("the new connection resolved the provider %d times in all, want 2", n)
	}
	res.set("localhost", "127.0.0.1")
	if status, _, body := e.do(t, "GET", "/c/keyed/reuse", s.Token, nil, nil); status != 200 {
		t.Fatalf("%d %s", status, body)
	}
	if n := res.count(); n != 3 {
		t.Fatalf("resolved %d times in all, want 3", n)
	}
}
