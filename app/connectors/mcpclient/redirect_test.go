package mcpclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A redirect of an MCP endpoint to another origin (here another port on loopback) is refused with an
// error naming the target, and the credential never reaches it; a redirect within the endpoint's origin
// is followed with the credential.
func TestRedirectsKeepTheCredentialAtTheEndpointsOrigin(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "target", Version: "1"}, nil)
	addTools(s, 1, "x")
	var leaked, reached atomic.Int32
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		if r.Header.Get("X-Api-Key") != "" || r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	defer other.Close()
	var sameOrigin atomic.Int32
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
		case "/old":
			http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
		default:
			if r.Header.Get("X-Api-Key") == "secret-key" {
				sameOrigin.Add(1)
			}
			h.ServeHTTP(w, r)
		}
	}))
	defer first.Close()
	target, _ := url.Parse(other.URL)

	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: first.URL + "/away", HeaderName: "X-Api-Key", HeaderValue: "secret-key"}
	_, err := p.ListTools(context.Background(), uuid.New(), ep)
	if err == nil || !strings.Contains(err.Error(), target.Host) || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("a redirect to another origin: %v, want an error naming %s", err, target.Host)
	}
	if n := leaked.Load(); n != 0 {
		t.Fatalf("the credential reached the other origin %d times", n)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the other origin got %d requests", n)
	}
	if _, err := p.CallTool(context.Background(), uuid.New(), ep, "t0", nil); err == nil || !strings.Contains(err.Error(), target.Host) {
		t.Fatalf("a call redirected to another origin: %v", err)
	}
	if leaked.Load() != 0 || reached.Load() != 0 {
		t.Fatalf("a call reached the other origin: %d requests, %d with the credential", reached.Load(), leaked.Load())
	}

	same := Endpoint{URL: first.URL + "/old", HeaderName: "X-Api-Key", HeaderValue: "secret-key"}
	ts, err := p.ListTools(context.Background(), uuid.New(), same)
	if err != nil || len(ts) != 1 {
		t.Fatalf("a redirect within the origin: %d tools, %v", len(ts), err)
	}
	if sameOrigin.Load() == 0 {
		t.Fatal("the credential did not follow a redirect within the endpoint's origin")
	}
}

// The adapters' client follows a redirect to another origin without the adapter's own credential
// headers (net/http keeps those; it drops only Authorization and Cookie), and keeps them within the origin.
func TestAdapterClientDropsCredentialsOnForeignRedirects(t *testing.T) {
	var foreign atomic.Value
	foreign.Store(http.Header{})
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		foreign.Store(r.Header.Clone())
	}))
	defer other.Close()
	var kept atomic.Int32
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/landing", http.StatusFound)
		case "/old":
			http.Redirect(w, r, "/new", http.StatusFound)
		case "/new":
			if r.Header.Get("X-Api-Key") == "adapter-key" {
				kept.Add(1)
			}
		}
	}))
	defer first.Close()

	p := New(Options{AllowLoopback: true})
	defer p.Close()
	hc := p.HTTPClient()
	get := func(path string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, first.URL+path, nil)
		req.Header.Set("X-Api-Key", "adapter-key")
		req.Header.Set("Authorization", "Bearer adapter-token")
		req.Header.Set("Accept", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
	}
	get("/away")
	h := foreign.Load().(http.Header)
	if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
		t.Fatalf("the other origin got the adapter's credentials: %v", h)
	}
	if h.Get("Accept") != "application/json" {
		t.Fatalf("the other origin lost the Accept header: %v", h)
	}
	get("/old")
	if kept.Load() != 1 {
		t.Fatal("a redirect within the origin lost the adapter's credential header")
	}
}
