package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/websession"
)

// A plugin tool has a switch like a connector tool's, end to end: the organisation's owner switches
// utils_echo Off over the portal's API; a plain member's agent then neither finds it (search_tools
// names it under unavailable, saying why), nor reads its schema, nor runs it (the record says TOOL_OFF); the
// member cannot turn it back On for his own agent (409, naming the organisation) nor at the
// organisation (404: a scope he does not manage is unknown to him, as for connector switches); the owner's On lifts it.
func TestPluginToolSwitchOverMCP(t *testing.T) {
	t.Parallel()
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelWarn)
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	orgs := srv.M.Organizations
	for _, u := range []e2eUser{ada, bob} {
		if err := orgs.SignedIn(ctx, u.ID, u.Email, md); err != nil {
			t.Fatal(err)
		}
	}
	acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.Invite(ctx, ada.ID, acme, bob.Email, organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	invs, err := orgs.PendingInvitations(ctx, bob.Email)
	if err != nil || len(invs) != 1 {
		t.Fatalf("bob's invitations: %+v, %v", invs, err)
	}
	if _, err := orgs.AcceptInvitation(ctx, bob.ID, bob.Email, invs[0].ID, md); err != nil {
		t.Fatal(err)
	}
	bobBot, err := orgs.CreateAgent(ctx, bob.ID, acme, "bob-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	key, pos, err := srv.M.Accounts.MintOrRotateAgent(ctx, bob.ID, bobBot, md)
	if err != nil {
		t.Fatal(err)
	}
	srv.waitFor(t, pos)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key.Secret, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	callText := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	echo := map[string]any{"executions": []any{map[string]any{"tool": "utils_echo", "args": map[string]any{"message": "hi"}}}}

	put := func(user uuid.UUID, body map[string]any) (int, string) {
		t.Helper()
		return portalDo(t, srv.M, user, http.MethodPut, srv.Base+"/api/tools/switches", body)
	}
	view := func(user uuid.UUID, scope string, id uuid.UUID, tool string) map[string]any {
		t.Helper()
		code, body := portalDo(t, srv.M, user, http.MethodGet, srv.Base+"/api/tools/switches?owner_scope="+scope+"&owner_id="+id.String(), nil)
		if code != http.StatusOK {
			t.Fatalf("GET /api/tools/switches at %s %s: %d %s", scope, id, code, body)
		}
		var v struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatal(err)
		}
		for _, tl := range v.Tools {
			if tl["name"] == tool {
				return tl
			}
		}
		t.Fatalf("GET /api/tools/switches lists no %s: %s", tool, body)
		return nil
	}
	sw := func(scope string, id uuid.UUID, on bool) map[string]any {
		return map[string]any{"owner_scope": scope, "owner_id": id.String(), "tool": "utils_echo", "on": on}
	}

	// No switch anywhere: the tool is On, as every plugin tool was before it had switches.
	if out, _ := callText("search_tools", map[string]any{"query": "echo"}); !strings.Contains(out, `"name":"utils_echo"`) {
		t.Fatalf("utils_echo not found before any switch: %s", out)
	}
	if out, _ := callText("execute_tools", echo); !strings.Contains(out, "hi") || strings.Contains(out, "did not run") {
		t.Fatalf("utils_echo did not run before any switch: %s", out)
	}

	if code, body := put(ada.ID, sw("organization", acme, false)); code != http.StatusNoContent {
		t.Fatalf("the owner's Off at the organisation: %d %s", code, body)
	}
	const why = "switched Off by organisation Acme"
	out, _ := callText("search_tools", map[string]any{"query": "echo"})
	var found struct {
		Tools       []struct{ Name string } `json:"tools"`
		Unavailable []struct {
			Name, Unavailable string
		} `json:"unavailable"`
	}
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		t.Fatalf("search_tools: %v: %s", err, out)
	}
	for _, tl := range found.Tools {
		if tl.Name == "utils_echo" {
			t.Fatalf("search_tools offers a tool switched Off: %s", out)
		}
	}
	if len(found.Unavailable) != 1 || found.Unavailable[0].Name != "utils_echo" || found.Unavailable[0].Unavailable != why {
		t.Fatalf("search_tools does not name utils_echo as unavailable %q: %s", why, out)
	}
	if out, isErr := callText("get_tool_schema", map[string]any{"tool": "utils_echo"}); !isErr || !strings.Contains(out, why) || strings.Contains(out, "inputSchema") {
		t.Fatalf("get_tool_schema of a tool switched Off: isError=%v %s", isErr, out)
	}
	if out, _ := callText("execute_tools", echo); !strings.Contains(out, why+" for this agent; it did not run") || strings.Contains(out, `"hi"`) {
		t.Fatalf("execute_tools of a tool switched Off: %s", out)
	}
	recs := srv.eventsUntil(t, execution.TypeToolExecuted, func(evs []eventstore.Envelope) bool {
		for _, e := range evs {
			if strings.Contains(string(e.Data), `"error_code":"TOOL_OFF"`) {
				return true
			}
		}
		return false
	})
	if len(recs) < 2 {
		t.Fatalf("want the run and the refused run recorded, got %d records", len(recs))
	}

	// The views say the same: the organisation holds the Off, and it binds the member's agent.
	if v := view(ada.ID, "organization", acme, "utils_echo"); v["switch"] != false || v["on"] != false || v["bound"] != false {
		t.Fatalf("the organisation's view of utils_echo: %v", v)
	}
	if v := view(bob.ID, "agent", bobBot, "utils_echo"); v["switch"] != nil || v["on"] != false || v["bound"] != true || v["unavailable"] != why {
		t.Fatalf("the member's agent's view of utils_echo: %v", v)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/tools/switches?owner_scope=organization&owner_id="+acme.String(), nil); code != http.StatusNotFound {
		t.Fatalf("a member reads the organisation's switches: %d %s", code, body)
	}

	// A plain member cannot lift it: not at his own agent, not at the organisation.
	if code, body := put(bob.ID, sw("agent", bobBot, true)); code != http.StatusConflict || !strings.Contains(body, "organisation Acme") {
		t.Fatalf("the member's On at his agent below the organisation's Off: %d %s", code, body)
	}
	if code, body := put(bob.ID, sw("organization", acme, true)); code != http.StatusNotFound {
		t.Fatalf("the member's On at the organisation: %d %s", code, body)
	}
	if out, _ := callText("execute_tools", echo); !strings.Contains(out, "it did not run") {
		t.Fatalf("the tool runs after the member's refused switches: %s", out)
	}
	// Nor at a scope that is not his: another member's agent in Acme, another organisation and its
	// agent. Each answers as an id that does not exist, and nothing is written there.
	adaBot, err := orgs.CreateAgent(ctx, ada.ID, acme, "ada-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	carol := srv.user(t, "carol@example.com")
	if err := orgs.SignedIn(ctx, carol.ID, carol.Email, md); err != nil {
		t.Fatal(err)
	}
	globex, err := orgs.Create(ctx, carol.ID, carol.Email, "Globex", md)
	if err != nil {
		t.Fatal(err)
	}
	carolBot, err := orgs.CreateAgent(ctx, carol.ID, globex, "carol-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []struct {
		scope string
		id    uuid.UUID
	}{{"agent", adaBot}, {"organization", globex}, {"agent", carolBot}} {
		if code, body := put(bob.ID, sw(o.scope, o.id, false)); code != http.StatusNotFound {
			t.Fatalf("the member's switch at %s %s: %d %s", o.scope, o.id, code, body)
		}
		if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/tools/switches?owner_scope="+o.scope+"&owner_id="+o.id.String(), nil); code != http.StatusNotFound {
			t.Fatalf("the member reads the switches of %s %s: %d %s", o.scope, o.id, code, body)
		}
	}
	if code, body := put(bob.ID, map[string]any{"owner_scope": "platform", "tool": "utils_echo", "on": true}); code != http.StatusForbidden {
		t.Fatalf("the member's switch at the platform: %d %s", code, body)
	}
	if v := view(carol.ID, "agent", carolBot, "utils_echo"); v["switch"] != nil || v["on"] != true {
		t.Fatalf("carol's agent after the member's refused switches: %v", v)
	}

	// Nor through the connectors' switch route, naming the plugin's switch id as a server.
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodPut, srv.Base+"/api/mcp/switches", map[string]any{"owner_scope": "agent",
		"owner_id": bobBot.String(), "mcp_server_id": "plugin:utils", "tool": "utils_echo", "on": true}); code < 400 {
		t.Fatalf("the member's On through /api/mcp/switches: %d %s", code, body)
	}
	if out, _ := callText("execute_tools", echo); !strings.Contains(out, "it did not run") {
		t.Fatalf("the tool runs after the member's On through the connectors' route: %s", out)
	}
	// A mutating tool starts Off (tools.json marks github_create_issue so); the member turns it On for
	// his own agent, which no Off above binds.
	const byDefault = "Off by default at the platform (mutating) until someone who manages a scope turns it On"
	if out, isErr := callText("get_tool_schema", map[string]any{"tool": "github_create_issue"}); !isErr || !strings.Contains(out, byDefault) {
		t.Fatalf("get_tool_schema of a mutating tool nobody switched On: isError=%v %s", isErr, out)
	}
	if out, _ := callText("search_tools", map[string]any{"query": "create issue", "integration": "github"}); !strings.Contains(out, `"unavailable":"`+byDefault+`"`) || strings.Contains(out, `"tools":[{"name":"github_create_issue"`) {
		t.Fatalf("search_tools offers a mutating tool nobody switched On: %s", out)
	}
	createIssue := func(user uuid.UUID, scope string, id uuid.UUID, on bool) (int, string) {
		return put(user, map[string]any{"owner_scope": scope, "owner_id": id.String(), "tool": "github_create_issue", "on": on})
	}
	if code, body := createIssue(bob.ID, "agent", bobBot, true); code != http.StatusNoContent {
		t.Fatalf("the member's On of github_create_issue at his agent: %d %s", code, body)
	}
	if out, isErr := callText("get_tool_schema", map[string]any{"tool": "github_create_issue"}); isErr || !strings.Contains(out, "inputSchema") {
		t.Fatalf("get_tool_schema once the member switched it On: isError=%v %s", isErr, out)
	}
	if v := view(bob.ID, "agent", bobBot, "github_create_issue"); v["starts_off"] != "mutating" || v["switch"] != true || v["on"] != true {
		t.Fatalf("the agent's view of github_create_issue: %v", v)
	}
	// The owner's Off at the organisation binds it again.
	if code, body := createIssue(ada.ID, "organization", acme, false); code != http.StatusNoContent {
		t.Fatalf("the owner's Off of github_create_issue: %d %s", code, body)
	}
	if out, isErr := callText("get_tool_schema", map[string]any{"tool": "github_create_issue"}); !isErr || !strings.Contains(out, why) {
		t.Fatalf("get_tool_schema after the organisation's Off above the agent's On: isError=%v %s", isErr, out)
	}
	// A curl session would reach what a switched-Off tool does: an integration with one is refused
	// before anything is minted, naming the tool and why.
	if out, isErr := callText("curl_session", map[string]any{"integrations": []string{"github"}}); !isErr || !strings.Contains(out, "TOOLS_OFF") ||
		!strings.Contains(out, "github_create_issue ("+why+")") || strings.Contains(out, "token") {
		t.Fatalf("curl_session for an integration with a tool switched Off: isError=%v %s", isErr, out)
	}

	// Nor does an unknown tool or a malformed body get through.
	if code, body := put(ada.ID, map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "tool": "no_such_tool", "on": false}); code != http.StatusUnprocessableEntity {
		t.Fatalf("a switch of an unknown tool: %d %s", code, body)
	}
	if code, body := put(ada.ID, map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "tool": "utils_echo"}); code != http.StatusBadRequest {
		t.Fatalf("a switch without on: %d %s", code, body)
	}

	if code, body := put(ada.ID, sw("organization", acme, true)); code != http.StatusNoContent {
		t.Fatalf("the owner's On at the organisation: %d %s", code, body)
	}
	if out, _ := callText("execute_tools", echo); !strings.Contains(out, "hi") || strings.Contains(out, "did not run") {
		t.Fatalf("utils_echo did not run once the owner lifted the Off: %s", out)
	}
}

// portalDo sends one portal API request as user (a session cookie m signs, and the CSRF header) and answers
// the status and body.
func portalDo(t *testing.T, m *Main, user uuid.UUID, method, url string, body any) (int, string) {
	t.Helper()
	cookie, err := m.Sessions.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, url, rd)
	req.AddCookie(cookie)
	req.Header.Set(websession.CSRFHeader, "1")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(raw)
}
