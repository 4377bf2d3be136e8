package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/mcppeer"
)

// streamTools reports progress (progress) or waits to be cancelled (wait).
type streamTools struct {
	seen    chan string   // what the client received, fed by the test
	started chan struct{} // wait began
	ended   chan error    // how wait ended
}

func newStreamTools() streamTools {
	return streamTools{seen: make(chan string, 4), started: make(chan struct{}, 1), ended: make(chan error, 1)}
}

func (streamTools) Tools() []Tool {
	return []Tool{
		{Name: "progress", Description: "Reports two steps.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "wait", Description: "Waits to be cancelled.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "ask", Description: "Asks the client for an elicitation.", InputSchema: json.RawMessage(`{"type":"object"}`)},
	}
}

func (st streamTools) CallTool(ctx context.Context, _ Principal, name string, _ json.RawMessage) (CallResult, error) {
	switch name {
	case "progress":
		ctx = mcppeer.Execution(ctx, 0, 1)
		reporting := mcppeer.Reporting(ctx)
		mcppeer.Report(ctx, 1, 2, "first")
		mcppeer.Report(ctx, 2, 2, "second")
		if reporting {
			// Answer once the client has the progress, so the test does not race the response.
			for range 2 {
				select {
				case <-st.seen:
				case <-ctx.Done():
					return CallResult{}, ctx.Err()
				}
			}
		}
		return CallResult{Text: fmt.Sprintf("reporting=%v", reporting)}, nil
	case "ask":
		res, err := mcppeer.Ask(ctx, "elicitation/create", json.RawMessage(`{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}`))
		if err != nil {
			return CallResult{Text: "error: " + err.Error()}, nil
		}
		return CallResult{Text: "answer: " + string(res)}, nil
	case "wait":
		st.started <- struct{}{}
		select {
		case <-ctx.Done():
			st.ended <- context.Cause(ctx)
		case <-time.After(time.Minute):
			st.ended <- errors.New("not cancelled within a minute")
		}
		return CallResult{Text: "ended"}, nil
	}
	return CallResult{}, &ParamsError{Message: "Unknown tool: " + name}
}

func streamServer(t *testing.T, tools streamTools) *httptest.Server {
	t.Helper()
	srv, err := New(Options{
		Auth: AuthenticatorFunc(func(r *http.Request) (Principal, error) {
			if r.Header.Get("Authorization") == "Bearer key-ada" {
				return Principal{UserID: "user-ada", Method: "api_key"}, nil
			}
			return Principal{}, errors.New("no")
		}),
		Tools:      tools,
		SessionKey: bytes.Repeat([]byte("k"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

func connectSDK(t *testing.T, url string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1"}, opts)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:             url,
		HTTPClient:           &http.Client{Transport: bearer{key: "key-ada", base: http.DefaultTransport}},
		DisableStandaloneSSE: true,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// A tools/call with a progressToken from a client that accepts text/event-stream is answered on a
// stream: its progress as notifications/progress with that token, in order, then the response.
func TestToolCallStreamsProgress(t *testing.T) {
	tools := newStreamTools()
	ts := streamServer(t, tools)
	var got []string
	cs := connectSDK(t, ts.URL, &sdk.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
		got = append(got, fmt.Sprintf("%v %g/%g %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message))
		tools.seen <- req.Params.Message
	}})
	params := &sdk.CallToolParams{Name: "progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != "reporting=true" {
		t.Fatalf("result %q", text)
	}
	want := []string{"tok-1 1/2 execution 0: first", "tok-1 2/2 execution 0: second"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress = %q, want %q", got, want)
	}
}

// Without a progressToken, or from a client that does not accept text/event-stream, the answer
// stays one JSON response.
func TestToolCallWithoutStreamIsJSON(t *testing.T) {
	ts := streamServer(t, newStreamTools())
	for name, c := range map[string]struct{ accept, meta string }{
		"no token":        {"application/json, text/event-stream", ``},
		"json only":       {"application/json", `,"_meta":{"progressToken":"t"}`},
		"no accept given": {"", `,"_meta":{"progressToken":"t"}`},
	} {
		sid := initSession(t, ts.URL, "key-ada")
		resp, body := do(t, ts.URL, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid, "Accept": c.accept},
			body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{}` + c.meta + `}}`})
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" || !strings.Contains(body, `reporting=false`) {
			t.Errorf("%s: %s %s", name, ct, body)
		}
	}
}

// notifications/cancelled from the client cancels the session's request it names: the tool's
// context ends with the client's cancellation and the POST ends without a response. Another
// session's cancellation of the same id, or one naming another id, does not.
func TestCancelledNotificationCancelsCall(t *testing.T) {
	tools := newStreamTools()
	ts := streamServer(t, tools)
	sid := initSession(t, ts.URL, "key-ada")
	other := initSession(t, ts.URL, "key-ada")
	type answer struct {
		ct, body string
	}
	answered := make(chan answer, 1)
	go func() {
		resp, body := do(t, ts.URL, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": sid},
			body: `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"wait","arguments":{}}}`})
		answered <- answer{resp.Header.Get("Content-Type"), body}
	}()
	select {
	case <-tools.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the call did not start within 30s")
	}
	cancelReq := func(session string, id string) {
		resp, body := do(t, ts.URL, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer key-ada", "Mcp-Session-Id": session},
			body: `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"test"}}`})
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("cancellation: %d %s", resp.StatusCode, body)
		}
	}
	cancelReq(other, "42")
	cancelReq(sid, "41")
	cancelReq(sid, `"42"`)
	select {
	case err := <-tools.ended:
		t.Fatalf("the call ended (%v) by another session's or request's cancellation", err)
	default:
	}
	cancelReq(sid, "42")
	select {
	case err := <-tools.ended:
		if !errors.Is(err, errCancelledByClient) {
			t.Fatalf("the tool ended by %v, want the client's cancellation", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the tool was not cancelled within 30s of notifications/cancelled")
	}
	select {
	case a := <-answered:
		if a.ct != "text/event-stream" || strings.Contains(a.body, "data:") {
			t.Fatalf("a cancelled request was answered: %s %q", a.ct, a.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled POST did not end within 30s")
	}
}

// A client that declared elicitation at initialize gets a tool's relayed elicitation/create on the
// call's stream, and its answer (a POST of the JSON-RPC response) goes back to the tool; a client
// that declared none is never asked, and the tool gets an error saying so.
func TestToolCallRelaysElicitation(t *testing.T) {
	ts := streamServer(t, newStreamTools())
	var asked []string
	cs := connectSDK(t, ts.URL, &sdk.ClientOptions{ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
	}})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; text != `answer: {"action":"accept","content":{"name":"Ada"}}` || fmt.Sprint(asked) != "[Your name?]" {
		t.Fatalf("result %q, asked %q", text, asked)
	}

	plain := connectSDK(t, ts.URL, &sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	res, err = plain.CallTool(context.Background(), &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*sdk.TextContent).Text; !strings.Contains(text, "did not declare the elicitation capability") {
		t.Fatalf("without elicitation: %q", text)
	}
}

// progressToken's shortcut (no "_meta" in params: no decode) answers what decoding the params would.
func TestProgressTokenShortcut(t *testing.T) {
	decoded := func(params []byte) json.RawMessage {
		var p struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		if json.Unmarshal(params, &p) != nil || !validID(p.Meta.ProgressToken) {
			return nil
		}
		return bytes.TrimSpace(p.Meta.ProgressToken)
	}
	for _, params := range []string{
		``, `null`, `{}`, `{"name":"x","arguments":{"_":1}}`, `{"name":"_x_","arguments":{"a_b":"_met"}}`,
		`{"_meta":{"progressToken":"t"}}`, `{"_META":{"progressToken":7}}`, `{"_Meta":{"progressToken":"t"},"name":"x"}`,
		`{"\u005fmeta":{"progressToken":"t"}}`, `{"_me\u0074a":{"progressToken":3}}`, `{"x":"_meta"}`, `{"_meta":1}`, `_meta`, `{"_met`,
	} {
		if got, want := progressToken(json.RawMessage(params)), decoded([]byte(params)); !bytes.Equal(got, want) {
			t.Errorf("progressToken(%s) = %s, decoding says %s", params, got, want)
		}
	}
}
