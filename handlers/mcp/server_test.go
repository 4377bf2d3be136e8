package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fakeTools is a ToolSet of two tools: echo returns its arguments; strict refuses any argument.
type fakeTools struct{}

func (fakeTools) Tools() []Tool {
	return []Tool{
		{Name: "echo", Description: "Returns its arguments.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "strict", Description: "Takes no arguments.", InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false}`)},
	}
}

func (fakeTools) CallTool(_ context.Context, p Principal, name string, args json.RawMessage) (CallResult, error) {
	switch name {
	case "echo":
		return CallResult{Text: fmt.Sprintf(`{"user":%q,"args":%s}`, p.UserID, args)}, nil
	case "strict":
		if string(args) != "{}" {
			return CallResult{}, &ParamsError{Message: "Invalid arguments for strict: no arguments allowed"}
		}
		return CallResult{Text: "ok"}, nil
	case "explode":
		return CallResult{}, errors.New("boom")
	}
	return CallResult{}, &ParamsError{Message: "Unknown tool: " + name}
}

// keys maps bearer tokens to users.
var keys = map[string]string{"key-ada": "user-ada", "key-bob": "user-bob"}

func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv, err := New(Options{
		Auth: AuthenticatorFunc(func(r *http.Request) (Principal, error) {
			tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if u, found := keys[tok]; ok && found {
				return Principal{UserID: u, Method: "api_key", ClientID: "k1"}, nil
			}
			return Principal{}, errors.New("no")
		}),
		Tools:               fakeTools{},
		SessionKey:          bytes.Repeat([]byte("k"), 32),
		AllowedOrigins:      []string{"https://wb.example.com"},
		ResourceMetadataURL: "https://wb.example.com/.well-known/oauth-protected-resource/mcp",
		ServerVersion:       "test",
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

type exchange struct {
	method  string
	headers map[string]string
	body    string
}

func do(t *testing.T, base string, ex exchange) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(ex.method, base, strings.NewReader(ex.body))
	if err != nil {
		t.Fatal(err)
	}
	if ex.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range ex.headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func initSession(t *testing.T, base, key string) string {
	t.Helper()
	return initSessionAt(t, base, key, "2025-06-18")
}

func initSessionAt(t *testing.T, base, key, version string) string {
	t.Helper()
	resp, body := do(t, base, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer " + key},
		body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`})
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	return sid
}

var sessionRE = regexp.MustCompile(`[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{43}`)

// TestGoldenExchanges checks every response shape of the endpoint against testdata/*.golden.
func TestGoldenExchanges(t *testing.T) {
	ts := testServer(t)
	sid := initSession(t, ts.URL, "key-ada")
	bobSid := initSession(t, ts.URL, "key-bob")
	ada := map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid, "MCP-Protocol-Version": "2025-06-18"}
	// ada03 is a session on revision 2025-03-26, the one revision that allows batches.
	ada03 := map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": initSessionAt(t, ts.URL, "key-ada", "2025-03-26"), "MCP-Protocol-Version": "2025-03-26"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range ada {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	cases := []struct {
		name string
		ex   exchange
		want int
	}{
		{"initialize_2025-11-25", exchange{"POST", map[string]string{"Authorization": "Bearer key-ada"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`}, 200},
		{"initialize_unknown_version_gets_latest", exchange{"POST", map[string]string{"Authorization": "Bearer key-ada"}, `{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2099-01-01","capabilities":{}}}`}, 200},
		{"initialize_without_version", exchange{"POST", map[string]string{"Authorization": "Bearer key-ada"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`}, 200},
		{"missing_credential", exchange{"POST", map[string]string{}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 401},
		{"bad_credential", exchange{"POST", map[string]string{"Authorization": "Bearer nope"}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 401},
		{"session_id_alone_does_not_authenticate", exchange{"POST", map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 401},
		{"foreign_origin", exchange{"POST", with(map[string]string{"Origin": "https://evil.example"}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 403},
		{"own_origin", exchange{"POST", with(map[string]string{"Origin": "https://wb.example.com"}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 200},
		{"initialized_notification", exchange{"POST", ada, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}, 202},
		{"ping", exchange{"POST", ada, `{"jsonrpc":"2.0","id":7,"method":"ping"}`}, 200},
		{"tools_list", exchange{"POST", ada, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`}, 200},
		{"tools_call", exchange{"POST", ada, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"x":1}}}`}, 200},
		{"tools_call_unknown_tool", exchange{"POST", ada, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`}, 200},
		{"tools_call_bad_arguments", exchange{"POST", ada, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"strict","arguments":{"x":1}}}`}, 200},
		{"tools_call_arguments_not_object", exchange{"POST", ada, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo","arguments":[1]}}`}, 200},
		{"tools_call_internal_error", exchange{"POST", ada, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"explode","arguments":{}}}`}, 200},
		{"unknown_method", exchange{"POST", ada, `{"jsonrpc":"2.0","id":9,"method":"resources/list"}`}, 200},
		{"parse_error", exchange{"POST", ada, `{"jsonrpc":`}, 400},
		{"batch_refused", exchange{"POST", ada, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`}, 400},
		{"initialize_2025-03-26", exchange{"POST", map[string]string{"Authorization": "Bearer key-ada"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`}, 200},
		{"ping_2025-03-26", exchange{"POST", ada03, `{"jsonrpc":"2.0","id":7,"method":"ping"}`}, 200},
		{"batch_2025-03-26_requests", exchange{"POST", ada03, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"echo","arguments":{"x":1}}},{"jsonrpc":"2.0","id":3,"method":"resources/list"}]`}, 200},
		{"batch_2025-03-26_invalid_members", exchange{"POST", ada03, `[{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"},1,{"jsonrpc":"1.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":null,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`}, 200},
		{"batch_2025-03-26_notifications_only", exchange{"POST", ada03, `[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":9,"result":{}}]`}, 202},
		{"batch_2025-03-26_sse", exchange{"POST", with(map[string]string{"Mcp-Session-Id": ada03["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-03-26", "Accept": "text/event-stream"}), `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]`}, 200},
		{"batch_empty", exchange{"POST", ada03, `[]`}, 400},
		{"batch_with_initialize", exchange{"POST", ada03, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`}, 400},
		{"batch_refused_2025-11-25", exchange{"POST", map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": initSessionAt(t, ts.URL, "key-ada", "2025-11-25")}, `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`}, 400},
		{"case_variant_member", exchange{"POST", ada, `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call"}`}, 400},
		{"duplicate_member", exchange{"POST", ada, `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`}, 400},
		{"logging_set_level", exchange{"POST", ada, `{"jsonrpc":"2.0","id":11,"method":"logging/setLevel","params":{"level":"warning"}}`}, 200},
		{"logging_set_level_invalid", exchange{"POST", ada, `{"jsonrpc":"2.0","id":12,"method":"logging/setLevel","params":{"level":"verbose"}}`}, 200},
		{"wrong_jsonrpc_version", exchange{"POST", ada, `{"jsonrpc":"1.0","id":1,"method":"ping"}`}, 400},
		{"null_id", exchange{"POST", ada, `{"jsonrpc":"2.0","id":null,"method":"ping","params":{}}`}, 400},
		{"object_id", exchange{"POST", ada, `{"jsonrpc":"2.0","id":{},"method":"ping"}`}, 400},
		{"missing_session", exchange{"POST", with(map[string]string{"Mcp-Session-Id": ""}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 400},
		{"forged_session", exchange{"POST", with(map[string]string{"Mcp-Session-Id": "eyJzIjoieCJ9.AAAA"}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 404},
		{"another_users_session", exchange{"POST", with(map[string]string{"Mcp-Session-Id": bobSid}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 404},
		{"unsupported_protocol_header", exchange{"POST", with(map[string]string{"MCP-Protocol-Version": "1900-01-01"}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 400},
		{"wrong_content_type", exchange{"POST", with(map[string]string{"Content-Type": "text/plain"}), `{"jsonrpc":"2.0","id":1,"method":"ping"}`}, 415},
		{"sse_response", exchange{"POST", with(map[string]string{"Accept": "text/event-stream"}), `{"jsonrpc":"2.0","id":10,"method":"ping"}`}, 200},
		{"get_not_allowed", exchange{"GET", ada, ""}, 405},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, ts.URL, tc.ex)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			got := fmt.Sprintf("%s %d\ncontent-type: %s\nwww-authenticate: %s\nmcp-session-id: %v\n\n%s",
				tc.ex.method, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("WWW-Authenticate"),
				resp.Header.Get("Mcp-Session-Id") != "", sessionRE.ReplaceAllString(body, "<session>"))
			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("exchange differs from %s\n--- got\n%s\n--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestDeleteEndsSession(t *testing.T) {
	ts := testServer(t)
	sid := initSession(t, ts.URL, "key-ada")
	h := map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid}
	if resp, body := do(t, ts.URL, exchange{"DELETE", map[string]string{"Authorization": "Bearer key-bob", "Mcp-Session-Id": sid}, ""}); resp.StatusCode != 404 {
		t.Fatalf("another user's DELETE: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ts.URL, exchange{"DELETE", h, ""}); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ts.URL, exchange{"POST", h, `{"jsonrpc":"2.0","id":1,"method":"ping"}`}); resp.StatusCode != 404 {
		t.Fatalf("ping after DELETE: %d %s", resp.StatusCode, body)
	}
}

func TestBodyLimit(t *testing.T) {
	ts := testServer(t)
	sid := initSession(t, ts.URL, "key-ada")
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"` + strings.Repeat("a", 5<<20) + `"}}}`
	resp, _ := do(t, ts.URL, exchange{"POST", map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid}, big})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

// bearer adds a fixed Authorization header to every request of the SDK client.
type bearer struct {
	key  string
	base http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.base.RoundTrip(r)
}

// TestOfficialClient drives the endpoint with the official MCP Go SDK client.
func TestOfficialClient(t *testing.T) {
	ts := testServer(t)
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{
		Endpoint:             ts.URL,
		HTTPClient:           &http.Client{Transport: bearer{key: "key-ada", base: http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatalf("ping: %v", err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 2 || tools.Tools[0].Name != "echo" {
		t.Fatalf("tools: %+v", tools.Tools)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if text != `{"user":"user-ada","args":{"x":1}}` {
		t.Fatalf("echo: %s", text)
	}
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	if err == nil || !strings.Contains(err.Error(), "Unknown tool: nope") {
		t.Fatalf("unknown tool: %v", err)
	}
}

// TestStrictDecoding: JSON-RPC members are matched case-sensitively and no object anywhere in a
// message may repeat a member, so what the endpoint runs is what a proxy reading exact keys sees.
func TestStrictDecoding(t *testing.T) {
	ts := testServer(t)
	sid := initSession(t, ts.URL, "key-ada")
	h := map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid}
	cases := []struct {
		name, body string
		status     int
		code       int // 0: a result
	}{
		{"plain ping", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, 0},
		{"member order does not matter", `{"method":"ping","id":1,"jsonrpc":"2.0"}`, 200, 0},
		{"unknown member is ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"a":1}}`, 200, 0},
		{"case variant beside the member", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/call","params":{"name":"echo"}}`, 400, CodeInvalidRequest},
		{"case variant alone", `{"jsonrpc":"2.0","id":1,"METHOD":"ping"}`, 400, CodeInvalidRequest},
		{"case variant of id", `{"jsonrpc":"2.0","ID":1,"method":"ping"}`, 400, CodeInvalidRequest},
		{"case variant of jsonrpc", `{"JSONRPC":"2.0","id":1,"method":"ping"}`, 400, CodeInvalidRequest},
		{"case variant of params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","Params":{"name":"echo"}}`, 400, CodeInvalidRequest},
		{"case variant of result", `{"jsonrpc":"2.0","id":1,"Result":{}}`, 400, CodeInvalidRequest},
		{"case variant of error", `{"jsonrpc":"2.0","id":1,"ERROR":{}}`, 400, CodeInvalidRequest},
		{"duplicate id", `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, 400, CodeInvalidRequest},
		{"duplicate method", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, 400, CodeInvalidRequest},
		{"duplicate through an escape", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"tools/list"}`, 400, CodeInvalidRequest},
		{"duplicate inside params", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"strict","arguments":{}}}`, 400, CodeInvalidRequest},
		{"duplicate deep in arguments", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"a":[{"b":1,"b":2}]}}}`, 400, CodeInvalidRequest},
		{"case variant inside params is not a tool name", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"Name":"echo","arguments":{}}}`, 200, CodeInvalidParams},
		{"method not a string", `{"jsonrpc":"2.0","id":1,"method":7}`, 400, CodeInvalidRequest},
		{"not an object", `42`, 400, CodeInvalidRequest},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"ping"} {}`, 400, CodeParseError},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"ping"`, 400, CodeParseError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, ts.URL, exchange{"POST", h, tc.body})
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			var got struct {
				Result json.RawMessage
				Error  *struct{ Code int }
			}
			if err := json.Unmarshal([]byte(body), &got); err != nil {
				t.Fatalf("body %q: %v", body, err)
			}
			switch {
			case tc.code == 0 && (got.Error != nil || got.Result == nil):
				t.Fatalf("want a result, got %s", body)
			case tc.code != 0 && (got.Error == nil || got.Error.Code != tc.code):
				t.Fatalf("want error %d, got %s", tc.code, body)
			}
		})
	}
}

// TestSetLevelIsKeptPerSession: logging/setLevel stores the level for the session it came on, and a
// DELETE of the session forgets it.
func TestSetLevelIsKeptPerSession(t *testing.T) {
	srv, err := New(Options{
		Auth:       AuthenticatorFunc(func(*http.Request) (Principal, error) { return Principal{UserID: "u"}, nil }),
		Tools:      fakeTools{},
		SessionKey: bytes.Repeat([]byte("k"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	a, b := initSession(t, ts.URL, "x"), initSession(t, ts.URL, "x")
	set := func(sid, level string) string {
		_, body := do(t, ts.URL, exchange{"POST", map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"` + level + `"}}`})
		return body
	}
	for _, level := range LogLevels {
		if body := set(a, level); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("setLevel %s: %s", level, body)
		}
	}
	set(b, "debug")
	if body := set(a, "Error"); !strings.Contains(body, `"code":-32602`) {
		t.Fatalf("a level is matched exactly: %s", body)
	}
	id := func(sid string) string {
		sess, ok := srv.checkSession(context.Background(), sid, Principal{UserID: "u"})
		if !ok {
			t.Fatal("session not valid")
		}
		return sess.ID
	}
	if got := srv.levels.get(id(a)); got != "emergency" {
		t.Fatalf("session a level %q", got)
	}
	if got := srv.levels.get(id(b)); got != "debug" {
		t.Fatalf("session b level %q", got)
	}
	ida := id(a)
	if resp, _ := do(t, ts.URL, exchange{"DELETE", map[string]string{"Mcp-Session-Id": a}, ""}); resp.StatusCode != 204 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if got := srv.levels.get(ida); got != "" {
		t.Fatalf("an ended session kept its level %q", got)
	}
}

// TestServerVersionAlwaysSet: serverInfo carries a version even when none is configured.
func TestServerVersionAlwaysSet(t *testing.T) {
	srv, err := New(Options{
		Auth:       AuthenticatorFunc(func(*http.Request) (Principal, error) { return Principal{UserID: "u"}, nil }),
		Tools:      fakeTools{},
		SessionKey: bytes.Repeat([]byte("k"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	_, body := do(t, ts.URL, exchange{"POST", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`})
	if !strings.Contains(body, `"serverInfo":{"name":"workbench","version":"dev"}`) {
		t.Fatalf("initialize: %s", body)
	}
}
