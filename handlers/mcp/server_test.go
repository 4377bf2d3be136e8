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
	resp, body := do(t, base, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer " + key},
		body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`})
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
