package connectorshttp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
)

type client struct {
	t      *testing.T
	base   string
	cookie *http.Cookie
}

func (c client) do(method, path string, body any, csrf bool) (int, http.Header, map[string]any) {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	if c.cookie != nil {
		req.AddCookie(c.cookie)
	}
	if csrf {
		req.Header.Set(websession.CSRFHeader, "1")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	if m == nil {
		m = map[string]any{"_raw": string(raw)}
	}
	return resp.StatusCode, resp.Header, m
}

// The /api/mcp routes with their status codes, over HTTP, on a real portal session.
func TestRoutes(t *testing.T) {
	const tok = "tok-http-routes-123"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
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
	anon := client{t: t, base: srv.URL}
	c := client{t: t, base: srv.URL, cookie: cookie}
	agent := connectorstest.Agent.String()

	if code, _, _ := anon.do("GET", "/api/mcp/servers", nil, false); code != 401 {
		t.Fatalf("anonymous catalog: %d", code)
	}
	code, _, body := c.do("GET", "/api/mcp/servers", nil, false)
	servers, _ := body["servers"].([]any)
	if code != 200 || len(servers) != 1 {
		t.Fatalf("catalog: %d %v", code, body)
	}
	s0 := servers[0].(map[string]any)
	if s0["id"] != "mcp_remote" || s0["logo_url"] != "/api/mcp/servers/mcp_remote/logo" || s0["tool_prefix"] != "remote" {
		t.Fatalf("server = %v", s0)
	}
	if f := s0["auth_fields"].([]any); len(f) != 1 || f[0].(map[string]any)["name"] != "token" {
		t.Fatalf("auth_fields = %v", f)
	}
	code, h, _ := anon.do("GET", "/api/mcp/servers/mcp_remote/logo", nil, false)
	if code != 200 || !strings.HasPrefix(h.Get("Content-Security-Policy"), "default-src 'none'") || h.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("logo: %d %v", code, h)
	}
	if code, _, _ := anon.do("GET", "/api/mcp/servers/mcp_nope/logo", nil, false); code != 404 {
		t.Fatalf("unknown logo: %d", code)
	}

	connect := map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": agent, "token": tok}
	if code, _, _ := c.do("POST", "/api/mcp/connections", connect, false); code != 403 {
		t.Fatalf("cross-origin connect: %d", code)
	}
	missing := map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": agent}
	if code, _, b := c.do("POST", "/api/mcp/connections", missing, true); code != 422 || !strings.Contains(b["message"].(string), "token") {
		t.Fatalf("missing token: %d %v", code, b)
	}
	if code, _, b := c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "platform", "token": tok}, true); code != 400 {
		t.Fatalf("platform owner: %d %v", code, b)
	}
	if code, _, _ := c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_nope", "owner_scope": "agent", "owner_id": agent, "token": tok}, true); code != 404 {
		t.Fatalf("unknown server: %d", code)
	}
	remote.Fail.Store(500)
	if code, _, b := c.do("POST", "/api/mcp/connections", connect, true); code != 502 {
		t.Fatalf("provider down: %d %v", code, b)
	}
	remote.Fail.Store(0)
	if code, _, b := c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": agent, "token": "tok-wrong-wrong"}, true); code != 422 {
		t.Fatalf("wrong key: %d %v", code, b)
	}
	code, _, b := c.do("POST", "/api/mcp/connections", connect, true)
	if code != 201 {
		t.Fatalf("connect: %d %v", code, b)
	}
	conn := b["connection"].(map[string]any)
	id := conn["id"].(string)
	raw, _ := json.Marshal(b)
	if conn["status"] != "connected" || strings.Contains(string(raw), tok) || strings.Contains(string(raw), "credential") {
		t.Fatalf("connect answered %s", raw)
	}
	if code, _, b := c.do("POST", "/api/mcp/connections", connect, true); code != 200 || b["outcome"] != "current" {
		t.Fatalf("the same key again: %d %v", code, b)
	}
	remote.Accept("tok-http-routes-456")
	connect["token"] = "tok-http-routes-456"
	if code, _, _ := c.do("POST", "/api/mcp/connections", connect, true); code != 409 {
		t.Fatalf("another key over a connected login: %d", code)
	}
	code, _, b = c.do("GET", "/api/mcp/connections?agent_id="+agent, nil, false)
	if list := b["connections"].([]any); code != 200 || len(list) != 1 {
		t.Fatalf("list: %d %v", code, b)
	}
	code, _, b = c.do("GET", "/api/mcp/connections/"+id, nil, false)
	tools, _ := b["tools"].([]any)
	if code != 200 || len(tools) != 4 {
		t.Fatalf("detail: %d %v", code, b)
	}
	for _, tt := range tools {
		tm := tt.(map[string]any)
		if tm["name"] == "remote_echo" && (tm["on"] != true || tm["from"] != "agent") {
			t.Fatalf("echo = %v", tm)
		}
	}
	if code, _, b := c.do("PUT", "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent, "mcp_server_id": "mcp_remote", "tool": "remote_echo", "on": false}, true); code != 204 {
		t.Fatalf("switch: %d %v", code, b)
	}
	code, _, b = c.do("POST", "/api/mcp/connections/"+id+"/call", map[string]any{"tool": "remote_whoami", "arguments": map[string]any{"text": ""}}, true)
	raw, _ = json.Marshal(b)
	if code != 200 || strings.Contains(string(raw), tok) || !strings.Contains(string(raw), "REDACTED") {
		t.Fatalf("test call: %d %s", code, raw)
	}
	if code, _, _ := c.do("PUT", "/api/mcp/connections/"+id+"/settings", map[string]any{"settings": map[string]any{}}, true); code != 422 {
		t.Fatalf("settings of a connector without a schema: %d", code)
	}
	if code, _, _ := c.do("GET", "/api/mcp/connections/"+id+"/lookup?property=x&q=y", nil, false); code != 404 {
		t.Fatalf("lookup without an adapter: %d", code)
	}
	if code, _, _ := c.do("DELETE", "/api/mcp/connections/"+id, nil, true); code != 204 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := c.do("GET", "/api/mcp/connections/"+id, nil, false); code != 404 {
		t.Fatalf("deleted login: %d", code)
	}
}
