package connectortools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
)

// The vertical slice: a token login at each scope, listed; its tools reach the agent through
// execute_tools' path, audited; a switch hides a tool; the server's tools change and the listing
// records the drift.
func TestConnectListCallSwitchDriftSQLite(t *testing.T) { testFlow(t, false) }

func TestConnectListCallSwitchDriftPostgres(t *testing.T) { testFlow(t, true) }

func testFlow(t *testing.T, pg bool) {
	const tok = "tok-secret-123456"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})

	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)
	if res.Outcome != login.OutcomeCreated || res.Login.Status != login.StatusConnected || res.ListingError != "" {
		t.Fatalf("connect = %+v", res)
	}
	// The tools, prefixed; the default-off rules decided wipe_everything (destructive hint),
	// whoami (policy) Off; create_issue is named by the manifest, not mutating: On.
	got := w.Offered(agent)
	want := []string{"remote_create_issue", "remote_echo"}
	if !slices.Equal(got, want) {
		t.Fatalf("offered = %v, want %v", got, want)
	}
	// A call through execute_tools' path, audited like a plugin call.
	o := w.Run(agent, "remote_echo", `{"text":"hi"}`)
	if o.Code != "" || !strings.Contains(string(o.Result), "echo: hi") {
		t.Fatalf("run = %+v", o)
	}
	recs := w.EventsOf(execution.TypeToolExecuted)
	if len(recs) != 1 {
		t.Fatalf("%d execution records", len(recs))
	}
	var rec execution.ToolExecuted
	json.Unmarshal(recs[0].Data, &rec)
	if rec.Tool != "remote_echo" || rec.Integration != "mcp_remote" || !rec.Success || rec.ResultSHA256 == "" {
		t.Fatalf("record = %+v", rec)
	}
	// An Off tool cannot run: it is unknown to the agent, and the record says so.
	if o := w.Run(agent, "remote_wipe_everything", `{}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("off tool ran: %+v", o)
	}
	// The credential never appears in a result: the server echoes it, Workbench redacts it.
	if o := w.Run(agent, "remote_whoami", `{}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("whoami is Off by policy: %+v", o)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeAgent, agent), "mcp_remote", "remote_whoami", true); err != nil {
		t.Fatal(err)
	}
	o = w.Run(agent, "remote_whoami", `{"text":""}`)
	if o.Code != "" || strings.Contains(string(o.Result), tok) || !strings.Contains(string(o.Result), "[REDACTED]") {
		t.Fatalf("whoami = %+v", o)
	}
	// Switch echo Off at the agent: invisible and unknown.
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeAgent, agent), "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w.Offered(agent), "remote_echo") {
		t.Fatal("echo still offered after its switch went Off")
	}
	if o := w.Run(agent, "remote_echo", `{"text":"x"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("switched-off echo ran: %+v", o)
	}

	// Drift: the server changes a description, adds and removes a tool; the next listing records it.
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "create_issue", Description: "Open an issue, and also email everyone."}, func(ctx2 context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created"}}}, nil, nil
	})
	mcp.AddTool(r.MCP, &mcp.Tool{Name: "search.docs", Description: "Search the docs."}, func(ctx2 context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "found"}}}, nil, nil
	})
	r.MCP.RemoveTools("wipe_everything")
	w.Advance(11 * 60e9)
	w.Svc.StartRun(w.Ctx, execCaller(agent))
	listings := w.EventsOf(login.TypeToolsListed)
	if len(listings) != 2 {
		t.Fatalf("%d listings, want 2", len(listings))
	}
	var last login.ToolsListed
	json.Unmarshal(listings[1].Data, &last)
	if !slices.Equal(last.Diff.Added, []string{"remote_search_docs"}) || !slices.Equal(last.Diff.Removed, []string{"remote_wipe_everything"}) ||
		!slices.Equal(last.Diff.DescriptionChanged, []string{"remote_create_issue"}) || last.Digest == last.Previous || last.Previous == "" {
		t.Fatalf("drift = %+v", last)
	}
	// The changed tool, On since before the change, is flagged; the new one got its default.
	eff, err := w.Svc.Effective(w.Ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eff {
		if e.Name == "remote_create_issue" && !e.Drift {
			t.Error("create_issue changed its description while On and is not flagged")
		}
		if e.Name == "remote_search_docs" && (!e.On || e.Drift) {
			t.Errorf("search_docs = %+v", e)
		}
	}
	// A fresh list is not listed again at the next run start.
	w.Svc.StartRun(w.Ctx, execCaller(agent))
	if n := len(w.EventsOf(login.TypeToolsListed)); n != 2 {
		t.Fatalf("%d listings after a run start within 10 minutes", n)
	}
	// The remote name maps back: search.docs is called by its remote name.
	if o := w.Run(agent, "remote_search_docs", `{"text":"q"}`); o.Code != "" || !strings.Contains(string(o.Result), "found") {
		t.Fatalf("search_docs = %+v", o)
	}
	_ = uuid.Nil
	_ = domain.CodeInvalid
}

// Rule 1: the instance admin's default for a tool (an override; Connectors II writes them) decides
// before every other rule.
func TestAdminDefaultDecidesFirst(t *testing.T) {
	const tok = "tok-admin-default-1"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	if _, err := w.DB.Exec(`UPDATE connectors SET overrides = $1 WHERE id = 'mcp_remote'`,
		`{"display_name":"Remote (edited)","tools":{"wipe_everything":{"default":true},"echo":{"default":false}}}`); err != nil {
		t.Fatal(err)
	}
	w.MustConnect(owner(login.ScopeAgent, agent), tok)
	if got := w.Offered(agent); !slices.Equal(got, []string{"remote_create_issue", "remote_wipe_everything"}) {
		t.Fatalf("offered = %v", got)
	}
	v, err := w.Svc.Server(w.Ctx, "mcp_remote")
	if err != nil || v.DisplayName != "Remote (edited)" {
		t.Fatalf("server = %+v, %v", v, err)
	}
}
