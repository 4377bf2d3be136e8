package mcpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// remote is a real MCP server on loopback whose tool "act" counts its calls; before the SDK's handler,
// fault may answer a request itself (it gets the decoded JSON-RPC method).
type remote struct {
	calls   atomic.Int32
	handler atomic.Pointer[http.Handler]
	server  *mcp.Server
	fault   func(w http.ResponseWriter, r *http.Request, method string) bool
	url     string
	srv     *httptest.Server
}

func newRemote(t *testing.T, answer func() (*mcp.CallToolResult, error)) *remote {
	t.Helper()
	rm := &remote{server: mcp.NewServer(&mcp.Implementation{Name: "counting", Version: "1"}, nil)}
	rm.server.AddTool(&mcp.Tool{Name: "act", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rm.calls.Add(1)
		return answer()
	})
	rm.restart()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(body, &msg)
		if rm.fault != nil && rm.fault(w, r, msg.Method) {
			return
		}
		(*rm.handler.Load()).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rm.url, rm.srv = srv.URL, srv
	return rm
}

// restart replaces the streamable handler, as a restarted server would: the sessions it knew are gone,
// and it answers 404 to a request in one of them.
func (rm *remote) restart() {
	// A test may reach it by a name of its resolver's (the SDK would refuse that Host on loopback).
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return rm.server }, &mcp.StreamableHTTPOptions{DisableLocalhostProtection: true})
	rm.handler.Store(&h)
}

func ok() (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
}

// A tools/call is sent again only when it provably never reached the remote: a JSON-RPC error or a
// connection reset after the remote read the request runs the tool once; a 404 for a session the
// remote no longer knows (it restarted) is retried on a new session and succeeds.
func TestCallIsRetriedOnlyWhenItNeverReachedTheRemote(t *testing.T) {
	login := uuid.New()
	call := func(t *testing.T, rm *remote) (json.RawMessage, error) {
		p := New(Options{AllowLoopback: true})
		t.Cleanup(p.Close)
		ep := Endpoint{URL: rm.url}
		if _, _, err := p.Initialize(context.Background(), login, ep); err != nil {
			t.Fatalf("initialize: %v", err)
		}
		return p.CallTool(context.Background(), login, ep, "act", json.RawMessage(`{}`))
	}

	t.Run("a JSON-RPC error", func(t *testing.T) {
		rm := newRemote(t, func() (*mcp.CallToolResult, error) { return nil, errors.New("the remote failed after acting") })
		out, err := call(t, rm)
		if err == nil {
			t.Fatalf("a JSON-RPC error answered %s", out)
		}
		if n := rm.calls.Load(); n != 1 {
			t.Fatalf("the tool ran %d times, want 1 (%v)", n, err)
		}
	})

	t.Run("a reset after the request was read", func(t *testing.T) {
		rm := newRemote(t, ok)
		rm.fault = func(w http.ResponseWriter, _ *http.Request, method string) bool {
			if method != "tools/call" {
				return false
			}
			rm.calls.Add(1)
			conn, _, err := http.NewResponseController(w).Hijack()
			if err != nil {
				panic(err)
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				_ = tc.SetLinger(0)
			}
			conn.Close()
			return true
		}
		out, err := call(t, rm)
		if err == nil {
			t.Fatalf("a reset connection answered %s", out)
		}
		if n := rm.calls.Load(); n != 1 {
			t.Fatalf("the tool was sent %d times, want 1 (%v)", n, err)
		}
	})

	t.Run("a stale session", func(t *testing.T) {
		rm := newRemote(t, ok)
		var stale atomic.Bool
		rm.fault = func(w http.ResponseWriter, _ *http.Request, method string) bool {
			if method == "tools/call" && stale.CompareAndSwap(false, true) {
				rm.restart()
			}
			return false
		}
		out, err := call(t, rm)
		if err != nil || !strings.Contains(string(out), "done") {
			t.Fatalf("a call after the remote restarted: %s, %v", out, err)
		}
		if n := rm.calls.Load(); n != 1 {
			t.Fatalf("the tool ran %d times, want 1", n)
		}
	})
}

// A call whose dial fails never reached the remote: it is sent again on a new session and runs once.
func TestCallIsRetriedWhenTheDialFailed(t *testing.T) {
	rm := newRemote(t, ok)
	u, _ := url.Parse(rm.url)
	rm.srv.Config.SetKeepAlivesEnabled(false) // every request dials
	var misdirect atomic.Int32
	res := &switchResolver{next: func() string {
		if misdirect.Add(-1) >= 0 {
			return "127.0.0.2" // nothing listens there on this port
		}
		return "127.0.0.1"
	}}
	p := New(Options{AllowLoopback: true, Resolver: res})
	defer p.Close()
	ep := Endpoint{URL: "http://remote.test:" + u.Port()}
	login := uuid.New()
	if _, _, err := p.Initialize(context.Background(), login, ep); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	misdirect.Store(2) // the call's address check and its dial
	out, err := p.CallTool(context.Background(), login, ep, "act", json.RawMessage(`{}`))
	if err != nil || !strings.Contains(string(out), "done") {
		t.Fatalf("a call after a failed dial: %s, %v (lookups %d)", out, err, res.asked.Load())
	}
	if n := rm.calls.Load(); n != 1 {
		t.Fatalf("the tool ran %d times, want 1", n)
	}
}

type switchResolver struct {
	next  func() string
	asked atomic.Int32
}

func (r *switchResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.asked.Add(1)
	return []netip.Addr{netip.MustParseAddr(r.next())}, nil
}
