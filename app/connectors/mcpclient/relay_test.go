//lint:file-ignore SA1019 the test server asks for sampling and roots, deprecated from protocol 2026-07-28 (SEP-2577), to check that Workbench relays them.

package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/mcppeer"
)

// agentClient answers relayed requests as an agent's client would, noting what it was asked.
type agentClient struct {
	mu    sync.Mutex
	asked []string
}

func (a *agentClient) Request(_ context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	a.mu.Lock()
	a.asked = append(a.asked, method)
	a.mu.Unlock()
	switch method {
	case "elicitation/create":
		return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), nil
	case "sampling/createMessage":
		return json.RawMessage(`{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m"}`), nil
	case "roots/list":
		return json.RawMessage(`{"roots":[{"uri":"file:///work","name":"work"}]}`), nil
	}
	return nil, &mcppeer.RemoteError{Code: -32601, Message: "no"}
}

// askServer has one tool that asks its client for an elicitation, a sampling and its roots, and
// answers what came back (or the errors).
func askServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var parts []string
		el, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			parts = append(parts, "elicit error: "+err.Error())
		} else {
			parts = append(parts, fmt.Sprintf("elicit %s %v", el.Action, el.Content["name"]))
		}
		sm, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			parts = append(parts, "sample error: "+err.Error())
		} else {
			parts = append(parts, "sample "+sm.Content.(*mcp.TextContent).Text)
		}
		rs, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			parts = append(parts, "roots error: "+err.Error())
		} else {
			parts = append(parts, fmt.Sprintf("roots %d", len(rs.Roots)))
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(parts, "; ")}}}, nil
	})
	return s
}

// A call whose agent's client declared elicitation, sampling and roots gets the remote's requests
// relayed to that client, and the answers back; a call whose agent declared none gets each refused
// with an error that says so, while the shared session declares them (so its listing is whole).
func TestCallToolRelaysRemoteRequests(t *testing.T) {
	p := New(Options{AllowLoopback: true})
	defer p.Close()
	ep := Endpoint{URL: serve(t, askServer(), nil)}
	login := uuid.New()

	agent := &agentClient{}
	ctx := mcppeer.WithClient(context.Background(), mcppeer.Elicitation|mcppeer.Sampling|mcppeer.Roots, agent)
	out, err := p.CallTool(ctx, login, ep, "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "elicit accept Ada; sample sampled; roots 1") {
		t.Fatalf("with the capabilities: %s", out)
	}
	if fmt.Sprint(agent.asked) != "[elicitation/create sampling/createMessage roots/list]" {
		t.Fatalf("the agent was asked %v", agent.asked)
	}

	out, err = p.CallTool(context.Background(), login, ep, "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Content) != 1 {
		t.Fatalf("result %s: %v", out, err)
	}
	for _, want := range []string{"elicit error: calling \"elicitation/create\": the agent's MCP client did not declare the elicitation capability", "sample error: calling \"sampling/createMessage\": the agent's MCP client did not declare the sampling capability", "roots error: calling \"roots/list\": the agent's MCP client did not declare the roots capability"} {
		if !strings.Contains(res.Content[0].Text, want) {
			t.Fatalf("without the capabilities: %s\nwant %q", out, want)
		}
	}

	// Only sampling declared: elicitation is not even declared to the remote on that session.
	only := &agentClient{}
	out, err = p.CallTool(mcppeer.WithClient(context.Background(), mcppeer.Sampling, only), login, ep, "ask", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "elicit error") || !strings.Contains(string(out), "sample sampled") || fmt.Sprint(only.asked) != "[sampling/createMessage]" {
		t.Fatalf("sampling only: %s, asked %v", out, only.asked)
	}
}
