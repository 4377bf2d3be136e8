package connectorshttp_test

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
)

// A body over the routes' cap is 413 with the JSON error body, not a 400 about its JSON.
func TestOversizedBodyIs413(t *testing.T) {
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS("http://127.0.0.1:1/mcp", nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewServer(r)
	defer srv.Close()
	cookie, err := sessions.Cookie(connectorstest.User)
	if err != nil {
		t.Fatal(err)
	}
	c := client{t: t, base: srv.URL, cookie: cookie}
	big := map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": connectorstest.Agent.String(), "token": strings.Repeat("x", 300<<10)}
	code, h, b := c.do("POST", "/api/mcp/connections", big, true)
	if code != 413 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || b["error"] != "invalid" || !strings.Contains(b["message"].(string), "larger than") {
		t.Fatalf("oversized body: %d %v", code, b)
	}
}
