package main

// End-to-end test of toolsets: an agent's owner curates a toolset, and the official Go SDK client
// lists and calls its tools at /mcp/ts/{name} as plain MCP tools; a tool switched Off at the
// organisation disappears from it; a tool switched to Ask answers APPROVAL_REQUIRED; every call is an
// execution record, as through execute_tools.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

func TestToolsetsEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tok = "tok-toolsets-0123"
	remote := connectorstest.NewRemoteWith(t, tok, &mcp.ServerOptions{CompletionHandler: func(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
		if req.Params.Ref == nil || req.Params.Ref.Type != "ref/prompt" || req.Params.Ref.Name != "greet" || req.Params.Argument.Name != "who" {
			return nil, fmt.Errorf("completion of %+v %+v", req.Params.Ref, req.Params.Argument)
		}
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{req.Params.Argument.Value + "da"}}}, nil
	}})
	// The remote serves resources, a resource template and a prompt too (before any session learns its
	// capabilities).
	remote.MCP.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "static content"}}}, nil
	})
	remote.MCP.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
	})
	remote.MCP.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + req.Params.Arguments["who"]}}}}, nil
	})
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	if err := srv.M.Organizations.SignedIn(ctx, ada.ID, ada.Email, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	org, agent := organization.PersonalOrganizationID(ada.ID), organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent},
		Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	portal := func(user e2eUser, method, path string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.Base)
		cookie, _ := srv.M.Sessions.Cookie(user.ID)
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out strings.Builder
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		out.Write(buf[:n])
		return resp.StatusCode, out.String()
	}
	set := map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "name": "ops", "description": "What ops needs.",
		"entries": []map[string]string{{"tool": "remote_*"}, {"tool": "utils_echo"}}, "connectors": []string{"mcp_remote"}}
	if status, body := portal(bob, http.MethodPut, "/api/toolsets", set); status/100 == 2 {
		t.Fatalf("bob curates ada's agent's toolset: %d %s", status, body)
	}
	if status, body := portal(ada, http.MethodPut, "/api/toolsets", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "name": "Bad Name", "entries": []map[string]string{{"tool": "x"}}}); status != http.StatusBadRequest {
		t.Fatalf("a malformed name: %d %s", status, body)
	}
	if status, body := portal(ada, http.MethodPut, "/api/toolsets", set); status != http.StatusOK || !strings.Contains(body, `"version":1`) || !strings.Contains(body, srv.Base+"/mcp/ts/ops") {
		t.Fatalf("save the toolset: %d %s", status, body)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp/ts/ops",
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	names := func() []string {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	// The set's tools the agent may use: the remote's On tools (its destructive one starts Off) and
	// utils_echo; nothing else of the catalog.
	if got := names(); !slices.Equal(got, []string{"remote_create_issue", "remote_echo", "remote_whoami", "utils_echo"}) &&
		!slices.Equal(got, []string{"remote_echo", "remote_whoami", "utils_echo"}) {
		t.Fatalf("tools/list of ops: %v", got)
	}
	text := func(res *mcp.CallToolResult) string {
		if len(res.Content) == 0 {
			return ""
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remote_echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError || text(res) != "echo: hi" || remote.Calls.Load() != 1 {
		t.Fatalf("remote_echo through the toolset: %v %+v", err, res)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "utils_echo", Arguments: map[string]any{"message": "plug"}}); err != nil || res.IsError || !strings.Contains(text(res), "plug") {
		t.Fatalf("utils_echo through the toolset: %v %+v", err, res)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "utils_time", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Unknown tool") {
		t.Fatalf("a tool outside the set: %v", err)
	}
	// The connector's resources, templates and prompts, namespaced by connector; each read audited.
	rs, err := cs.ListResources(ctx, nil)
	if err != nil || len(rs.Resources) != 1 || rs.Resources[0].URI != "workbench://mcp_remote/test://static" || rs.Resources[0].Name != "mcp_remote/static" {
		t.Fatalf("resources/list: %v %+v", err, rs)
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "workbench://mcp_remote/test://items/{id}" {
		t.Fatalf("resources/templates/list: %v %+v", err, tpl)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "workbench://mcp_remote/test://static"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "static content" || read.Contents[0].URI != "workbench://mcp_remote/test://static" {
		t.Fatalf("resources/read: %v %+v", err, read)
	}
	if item, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "workbench://mcp_remote/test://items/7"}); err != nil || item.Contents[0].Text != "item 7" {
		t.Fatalf("a templated resource: %v %+v", err, item)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "workbench://mcp_other/test://static"}); err == nil {
		t.Fatal("a resource of a connector the toolset does not serve was read")
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(ps.Prompts) != 1 || ps.Prompts[0].Name != "mcp_remote/greet" {
		t.Fatalf("prompts/list: %v %+v", err, ps)
	}
	got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "mcp_remote/greet", Arguments: map[string]string{"who": "ada"}})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*mcp.TextContent).Text != "Hello ada" {
		t.Fatalf("prompts/get: %v %+v", err, got)
	}

	// A completion of the prompt's argument, asked of the remote with the name it knows.
	comp, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "mcp_remote/greet"}, Argument: mcp.CompleteParamsArgument{Name: "who", Value: "a"}})
	if err != nil || len(comp.Completion.Values) != 1 || comp.Completion.Values[0] != "ada" {
		t.Fatalf("completion/complete: %v %+v", err, comp)
	}

	// The calls are execution records, as through execute_tools, and so is each read.
	recs := srv.settledEvents(t, execution.TypeToolExecuted, 5)
	var tools []string
	for _, env := range recs {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev) //nolint:errcheck // a malformed record fails below
		tools = append(tools, ev.Tool)
	}
	if !slices.Contains(tools, "remote_echo") || !slices.Contains(tools, "utils_echo") || !slices.Contains(tools, "resources/read") || !slices.Contains(tools, "prompts/get") {
		t.Fatalf("execution records: %v", tools)
	}
	// Off at the organisation: gone from the toolset.
	if status, body := portal(ada, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "organization", "owner_id": org.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "on": false}); status != http.StatusNoContent {
		t.Fatalf("switch Off at the organisation: %d %s", status, body)
	}
	if got := names(); slices.Contains(got, "remote_echo") {
		t.Fatalf("a tool Off at the organisation is still listed: %v", got)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remote_echo", Arguments: map[string]any{"text": "x"}}); err == nil || remote.Calls.Load() != 1 {
		t.Fatalf("a tool Off at the organisation ran: %v", err)
	}
	// Ask: the call answers APPROVAL_REQUIRED with the approval's page.
	if status, body := portal(ada, http.MethodPut, "/api/tools/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": "utils_echo", "state": "ask"}); status != http.StatusNoContent {
		t.Fatalf("Ask: %d %s", status, body)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "utils_echo", Arguments: map[string]any{"message": "plug"}}); err != nil || !res.IsError || !strings.Contains(text(res), "APPROVAL_REQUIRED") || !strings.Contains(text(res), "/approvals/") {
		t.Fatalf("an Ask tool through the toolset: %v %+v", err, res)
	}
	// A toolset the agent's chain does not hold is refused.
	other, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp/ts/nope",
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ListTools(ctx, nil); err == nil || !strings.Contains(err.Error(), "no toolset") {
		t.Fatalf("an unknown toolset: %v", err)
	}
	// A client holding the GET stream is told when the list changes: its answer's headers come once
	// the stream's baseline is read, so the edit below is a change to it.
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Base+"/mcp/ts/ops", strings.NewReader(init))
	req.Header.Set("Authorization", "Bearer "+ada.Key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	initBody := make([]byte, 4096)
	n, _ := resp.Body.Read(initBody)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" || !strings.Contains(string(initBody[:n]), `"listChanged":true`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, initBody[:n])
	}
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	get, _ := http.NewRequestWithContext(streamCtx, http.MethodGet, srv.Base+"/mcp/ts/ops", nil)
	get.Header.Set("Authorization", "Bearer "+ada.Key)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set("Mcp-Session-Id", sid)
	get.Header.Set("MCP-Protocol-Version", "2025-06-18")
	stream, err := http.DefaultClient.Do(get)
	if err != nil || stream.StatusCode != http.StatusOK {
		t.Fatalf("the GET stream: %v %v", err, stream)
	}
	defer stream.Body.Close()
	notified := make(chan string, 1)
	go func() {
		buf := make([]byte, 4096)
		var got strings.Builder
		for {
			n, err := stream.Body.Read(buf)
			got.Write(buf[:n])
			if strings.Contains(got.String(), "notifications/tools/list_changed") || err != nil {
				notified <- got.String()
				return
			}
		}
	}()

	// An edit is a new version.
	set["entries"] = []map[string]string{{"tool": "utils_*"}}
	if status, body := portal(ada, http.MethodPut, "/api/toolsets", set); status != http.StatusOK || !strings.Contains(body, `"version":2`) {
		t.Fatalf("edit the toolset: %d %s", status, body)
	}
	if got := names(); slices.Contains(got, "remote_whoami") || !slices.Contains(got, "utils_time") {
		t.Fatalf("tools/list after the edit: %v", got)
	}
	select {
	case got := <-notified:
		if !strings.Contains(got, `"method":"notifications/tools/list_changed"`) {
			t.Fatalf("the GET stream ended without list_changed: %q", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 30 s of the edit")
	}

	// A revoked key ends the GET stream.
	get2, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.Base+"/mcp/ts/ops", nil)
	get2.Header = get.Header.Clone()
	stream2, err := http.DefaultClient.Do(get2)
	if err != nil || stream2.StatusCode != http.StatusOK {
		t.Fatalf("a second GET stream: %v %v", err, stream2)
	}
	defer stream2.Body.Close()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream2.Body); ended <- err }()
	pos, err := srv.M.Accounts.RevokeKey(ctx, ada.ID, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	srv.waitFor(t, pos)
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Fatal("the GET stream of a revoked key was still open 30 s after the revocation")
	}
}
