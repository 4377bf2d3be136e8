package connectorlogins_test

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/workbench/workbench/plugins/brave-search"
	"github.com/workbench/workbench/plugins/connector"
)

// fakeBrave is the Brave Search API's web search as documented: GET /res/v1/web/search with q and
// count, the key in X-Subscription-Token; a wrong key is 401. It echoes the key it got in one result's
// description, as a careless provider might, so the test sees the redaction.
func fakeBrave(t *testing.T, key string, calls *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("q") == "" || r.Header.Get("Accept") != "application/json" {
			t.Errorf("unexpected request %s %s (Accept %q)", r.Method, r.URL, r.Header.Get("Accept"))
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if r.Header.Get("X-Subscription-Token") != key {
			http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
			return
		}
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "search", "web": map[string]any{"results": []map[string]string{
			{"title": "Result for " + r.URL.Query().Get("q"), "url": "https://example.com/", "description": "searched with " + r.Header.Get("X-Subscription-Token")},
		}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// braveFS is the shipped brave folder.
func braveFS(t *testing.T) fs.FS {
	raw, err := fs.ReadFile(brave.Connectors(), "brave/connector.json")
	if err != nil {
		t.Fatal(err)
	}
	return fstest.MapFS{"brave/connector.json": {Data: raw}}
}

// The shipped Brave Web Search connector runs on the brave-search integration's platform key: set
// under Admin, Platform keys, it gives every organisation the web_search tool; the call reaches the
// provider with the key, and the result names the key only by its label.
func TestBraveWebRunsOnThePlatformKey(t *testing.T) {
	const key = "BSA-platform-key-0042"
	var calls atomic.Int64
	fake := fakeBrave(t, key, &calls)
	w := newWorld(t, worldOptions{FS: braveFS(t), Adapters: map[string]connector.Adapter{"brave": brave.New(fake.URL)}, Admins: []string{adminEmail}})
	srv, err := w.Reader.Server(w.Ctx, "mcp_brave")
	if err != nil {
		t.Fatal(err)
	}
	tool := srv.ToolPrefix + "_web_search"
	if o := w.Run(agent, tool, `{"query":"go"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("before the key: %+v", o)
	}
	if _, err := w.Keys.Set(w.Ctx, admin, "integration:brave-search", map[string]string{"api_key": key}); err != nil {
		t.Fatal(err)
	}
	o := w.Run(agent, tool, `{"query":"go","count":3}`)
	if o.Code != "" || calls.Load() != 1 {
		t.Fatalf("search = %+v, provider calls %d", o, calls.Load())
	}
	res := string(o.Result)
	if strings.Contains(res, key) || !strings.Contains(res, "searched with [REDACTED:platform_brave_api_key]") || !strings.Contains(res, "Result for go") {
		t.Fatalf("result = %s", res)
	}
}
