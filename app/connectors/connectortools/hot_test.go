package connectortools_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain/login"
)

// The tool-call path's caches (an agent's On tools by name, the opened credentials and their
// redactor) follow every write at once: a switch turned Off or On, credentials replaced, a relisting.
// The world's cache keeps its default lifetime (a second), so only the writes can explain what the
// calls see.
func TestToolCallCachesFollowWrites(t *testing.T) {
	const tok1, tok2 = "tok-first-123456", "tok-second-654321"
	r := newRemote(t, tok1)
	r.Accept(tok2)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok1)
	agentOwner := owner(login.ScopeAgent, agent)

	if o := w.Run(agent, "remote_echo", `{"text":"one"}`); o.Code != "" || !strings.Contains(string(o.Result), "echo: one") {
		t.Fatalf("echo = %+v", o)
	}
	// Off: the next call finds no such tool, though the On tools were cached a moment ago.
	if err := w.Svc.SetSwitch(w.Ctx, user, agentOwner, "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"two"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("echo switched Off ran: %+v", o)
	}
	// On again: it runs at once.
	if err := w.Svc.SetSwitch(w.Ctx, user, agentOwner, "mcp_remote", "remote_echo", true); err != nil {
		t.Fatal(err)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"three"}`); o.Code != "" || !strings.Contains(string(o.Result), "echo: three") {
		t.Fatalf("echo switched On = %+v", o)
	}

	// whoami answers the token it was called with; the result is redacted with the login's
	// credentials of the moment, before and after they are replaced.
	if err := w.Svc.SetSwitch(w.Ctx, user, agentOwner, "mcp_remote", "remote_whoami", true); err != nil {
		t.Fatal(err)
	}
	o := w.Run(agent, "remote_whoami", `{"text":""}`)
	if o.Code != "" || strings.Contains(string(o.Result), tok1) || !strings.Contains(string(o.Result), "[REDACTED]") {
		t.Fatalf("whoami with the first token = %+v", o)
	}
	if got, err := w.Connect(agentOwner, tok2, login.OnExisting{Mode: login.OnExistingReplace}); err != nil || got.Outcome != login.OutcomeReplaced || got.Login.ID != res.Login.ID {
		t.Fatalf("replace = %+v, %v", got, err)
	}
	r.Revoke(tok1) // a call that still sent the first token would fail
	o = w.Run(agent, "remote_whoami", `{"text":""}`)
	if o.Code != "" || strings.Contains(string(o.Result), tok2) || !strings.Contains(string(o.Result), "[REDACTED]") {
		t.Fatalf("whoami with the second token = %+v", o)
	}

	// A result with isError is an error of the call, its text shown (and redacted).
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "refuse", Description: "Refuse politely."}, func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "refused for " + tok2}}}, nil, nil
	})
	if err := w.Svc.Relist(w.Ctx, user.String(), res.Login.ID); err != nil {
		t.Fatal(err)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, agentOwner, "mcp_remote", "remote_refuse", true); err != nil {
		t.Fatal(err)
	}
	o = w.Run(agent, "remote_refuse", `{"text":""}`)
	if o.Code != "TOOL_ERROR" || o.Message != "refused for [REDACTED]" {
		t.Fatalf("refuse = %+v", o)
	}
}
