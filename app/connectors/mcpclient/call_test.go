package mcpclient

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallTool sends the arguments as given (not decoded and encoded again): the server reads the same
// values, numbers beyond float64 and nested objects included; arguments that are not JSON are refused
// before anything is sent.
func TestCallToolSendsArgumentsAsGiven(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "args", Version: "1"}, nil)
	got := make(chan json.RawMessage, 1)
	s.AddTool(&mcp.Tool{Name: "show", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		got <- append(json.RawMessage(nil), req.Params.Arguments...)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "seen"}}}, nil
	})
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: serve(t, s, nil)}
	login := uuid.New()
	args := json.RawMessage(`{"id":12345678901234567890,"nested":{"list":[1,"two",null]},"text":"a\u00e9b"}`)
	out, err := p.CallTool(context.Background(), login, ep, "show", args)
	if err != nil || !strings.Contains(string(out), `"seen"`) {
		t.Fatalf("call = %s, %v", out, err)
	}
	var want, have any
	json.Unmarshal(args, &want)
	seen := <-got
	json.Unmarshal(seen, &have)
	if !strings.Contains(string(seen), "12345678901234567890") || !jsonEqual(want, have) {
		t.Fatalf("server read %s, want %s", seen, args)
	}
	if _, err := p.CallTool(context.Background(), login, ep, "show", json.RawMessage(`{"broken":`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("broken arguments: %v", err)
	}
	select {
	case a := <-got:
		t.Fatalf("broken arguments reached the server: %s", a)
	default:
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
