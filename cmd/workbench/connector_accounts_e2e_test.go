package main

// End-to-end test of several accounts per connector login owner: a user connects two accounts of a
// token connector at her agent (through the portal's API) and one more at her organisation, and the
// agent runs the remote's tool on each by label and on the default without one, over MCP with the
// official Go SDK. The remote MCP server answers which account's token reached it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

func TestConnectorAccountsEndToEndSQLite(t *testing.T) {
	t.Parallel()
	runConnectorAccounts(t, filepath.Join(t.TempDir(), "wb.db"))
}

func TestConnectorAccountsEndToEndPostgres(t *testing.T) {
	t.Parallel()
	runConnectorAccounts(t, testenv.PostgresURL(t))
}

func runConnectorAccounts(t *testing.T, databaseURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	accounts := map[string]string{"tok-home-0123": "ada-home", "tok-work-0123": "ada-work", "tok-team-0123": "acme-team"}
	remote := connectorstest.NewRemote(t, "tok-home-0123")
	remote.Accept("tok-work-0123")
	remote.Accept("tok-team-0123")
	// which names the account whose token arrived, never the token (a result echoing it is redacted).
	mcp.AddTool(remote.MCP, &mcp.Tool{Name: "which", Description: "Say which account called."}, func(_ context.Context, req *mcp.CallToolRequest, _ connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		name := accounts[strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")]
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "account " + name}}}, nil, nil
	})
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, databaseURL, map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	agent := organization.DefaultAgentID(ada.ID) // the API key's agent
	org := organization.PersonalOrganizationID(ada.ID)
	portal := func(method, path string, body any) (int, string) {
		t.Helper()
		b, _ := json.Marshal(body)
		if body == nil {
			b = nil
		}
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, bytes.NewReader(b))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.Base)
		cookie, err := srv.M.Sessions.Cookie(ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body) //nolint:errcheck // the status says what went wrong
		return resp.StatusCode, out.String()
	}
	connect := func(scope login.Scope, owner, account, token string) (int, string) {
		body := map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": string(scope), "owner_id": owner, "token": token}
		if account != "" {
			body["account"] = account
		}
		return portal(http.MethodPost, "/api/mcp/connections", body)
	}
	idOf := func(body string) string {
		var v struct {
			Connection struct {
				ID      string `json:"id"`
				Account string `json:"account"`
			} `json:"connection"`
		}
		json.Unmarshal([]byte(body), &v) //nolint:errcheck // an empty id fails below
		return v.Connection.ID
	}

	// Two accounts at the agent: the first without a label ("default"), the second "work". A label
	// connected already is refused (remove it or name another), as is a malformed one.
	status, body := connect(login.ScopeAgent, agent.String(), "", "tok-home-0123")
	if status != http.StatusCreated || !strings.Contains(body, `"account":"default"`) {
		t.Fatalf("connect the first account: %d %s", status, body)
	}
	if idOf(body) == "" {
		t.Fatalf("no login id in %s", body)
	}
	status, body = connect(login.ScopeAgent, agent.String(), "work", "tok-work-0123")
	if status != http.StatusCreated || !strings.Contains(body, `"account":"work"`) || !strings.Contains(body, `"default":false`) {
		t.Fatalf("connect work: %d %s", status, body)
	}
	workID := idOf(body)
	if status, body := connect(login.ScopeAgent, agent.String(), "work", "tok-home-0123"); status != http.StatusConflict || !strings.Contains(body, "account work") {
		t.Fatalf("connect work again: %d %s, want 409 naming the account", status, body)
	}
	if status, body := connect(login.ScopeAgent, agent.String(), "Not.Valid", "tok-home-0123"); status != http.StatusBadRequest {
		t.Fatalf("a malformed label: %d %s, want 400", status, body)
	}
	// One more at the organisation, "team": the agent's chain reaches it by label.
	if status, body := connect(login.ScopeOrganization, org.String(), "team", "tok-team-0123"); status != http.StatusCreated {
		t.Fatalf("connect the organisation's team account: %d %s", status, body)
	}
	status, body = portal(http.MethodGet, "/api/mcp/connections?agent_id="+agent.String(), nil)
	var listed struct {
		Connections []struct {
			ID, Account, OwnerScope string
			Default                 bool
		} `json:"connections"`
	}
	json.Unmarshal([]byte(body), &listed) //nolint:errcheck // checked below
	got := map[string]bool{}
	for _, c := range listed.Connections {
		got[c.Account] = c.Default
	}
	if status != http.StatusOK || len(listed.Connections) != 3 || !got["default"] || got["work"] || !got["team"] {
		t.Fatalf("the listed logins: %d %s; want default (the agent's default), work, team (the organisation's only account, its default)", status, body)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// list_integrations shows the agent every account its chain holds, the default marked.
	var listedMCP struct {
		Connectors []struct {
			Integration string `json:"integration"`
			Accounts    []struct {
				Label, Scope string
				Default      bool
			} `json:"accounts"`
		} `json:"connectors"`
	}
	call(t, cs, "list_integrations", map[string]any{}, &listedMCP)
	if len(listedMCP.Connectors) != 1 || listedMCP.Connectors[0].Integration != "mcp_remote" || len(listedMCP.Connectors[0].Accounts) != 3 {
		t.Fatalf("list_integrations' connectors: %+v", listedMCP.Connectors)
	}
	for _, a := range listedMCP.Connectors[0].Accounts {
		want := map[string]string{"default": "agent", "work": "agent", "team": "organization"}[a.Label]
		if a.Scope != want || a.Default != (a.Label == "default") {
			t.Errorf("list_integrations' account %+v: want scope %q, default only for the agent's first", a, want)
		}
	}
	run := func(account string) (text, code, msg string) {
		t.Helper()
		x := ex("remote_which", map[string]any{"text": "x"})
		if account != "" {
			x["account"] = account
		}
		r := execute(t, cs, x).Results[0]
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(r["result"], &res)  //nolint:errcheck // an error has no result
		json.Unmarshal(r["error"], &code)  //nolint:errcheck // nor an error code when it ran
		json.Unmarshal(r["message"], &msg) //nolint:errcheck // nor a message
		if len(res.Content) > 0 {
			text = res.Content[0].Text
		}
		return text, code, msg
	}
	for _, c := range []struct{ account, want string }{{"", "account ada-home"}, {"default", "account ada-home"}, {"work", "account ada-work"}, {"team", "account acme-team"}} {
		if text, code, msg := run(c.account); text != c.want {
			t.Errorf("remote_which on %q: %q (%s %s), want %q", c.account, text, code, msg, c.want)
		}
	}
	before := remote.Calls.Load()
	if _, code, msg := run("personal"); code != "NOT_CONNECTED" || !strings.Contains(msg, "default, team, work") {
		t.Errorf("an unknown label: %s %s; want NOT_CONNECTED listing default, team, work", code, msg)
	}
	if remote.Calls.Load() != before {
		t.Error("a call on an unknown account reached a remote")
	}
	// Each record names the account its call used; the default label stays unnamed.
	named := map[string]int{}
	for _, env := range srv.settledEvents(t, execution.TypeToolExecuted, 5) {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev) //nolint:errcheck // a malformed record fails the counts
		if ev.Integration != "mcp_remote" {
			t.Errorf("a record names integration %q", ev.Integration)
		}
		named[ev.Account+"/"+ev.ErrorCode]++
	}
	if named["/"] != 2 || named["work/"] != 1 || named["team/"] != 1 || named["personal/NOT_CONNECTED"] != 1 {
		t.Errorf("records by account/error: %v", named)
	}

	// Making work the agent's default: a call without a label uses it.
	if status, body := portal(http.MethodPost, "/api/mcp/connections/"+workID+"/default", nil); status != http.StatusOK || !strings.Contains(body, `"default":true`) {
		t.Fatalf("choose work: %d %s", status, body)
	}
	if text, _, _ := run(""); text != "account ada-work" {
		t.Errorf("the new default runs %q", text)
	}
	// A switch binds every account: Off at the agent, no label runs the tool.
	if status, body := portal(http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_which", "on": false}); status/100 != 2 {
		t.Fatalf("switch Off: %d %s", status, body)
	}
	for _, account := range []string{"", "default", "work", "team"} {
		if text, code, msg := run(account); text != "" || !strings.HasPrefix(code, "Unknown tool: remote_which") {
			t.Errorf("switched Off, remote_which on %q ran: %q %s %s", account, text, code, msg)
		}
	}
	if status, body := portal(http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_which", "on": true}); status/100 != 2 {
		t.Fatalf("switch On: %d %s", status, body)
	}

	// Removing work leaves the first account working, the default again; the default switches the
	// owner's listings wrote stay (remote_wipe_everything starts Off and stays Off).
	if status, body := portal(http.MethodDelete, "/api/mcp/connections/"+workID, nil); status != http.StatusNoContent {
		t.Fatalf("remove work: %d %s", status, body)
	}
	if text, _, _ := run(""); text != "account ada-home" {
		t.Errorf("after removing work, the default runs %q", text)
	}
	if _, code, msg := run("work"); code != "NOT_CONNECTED" || !strings.Contains(msg, "default, team") {
		t.Errorf("the removed account: %s %s", code, msg)
	}
	r := execute(t, cs, ex("remote_wipe_everything", map[string]any{"text": "x"})).Results[0]
	if !strings.Contains(string(r["error"]), "Unknown tool: remote_wipe_everything") {
		t.Errorf("a tool Off by default runs after one account's removal: %v", r)
	}

	// Deleting the agent's logins (an agent or its member deleted) shreds every account's credential.
	if _, code, _ := run("work"); code != "NOT_CONNECTED" {
		t.Fatal("work is back")
	}
	status, body = connect(login.ScopeAgent, agent.String(), "work", "tok-work-0123")
	if status != http.StatusCreated {
		t.Fatalf("connect work again: %d %s", status, body)
	}
	if err := srv.M.Connectors.RemoveAgentLogins(ctx, agent, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	owner := login.Owner{Scope: login.ScopeAgent, ID: agent}
	for _, account := range []string{"default", "work"} {
		stream := login.StreamName("mcp_remote", owner, account)
		envs, err := srv.M.Store.Load(ctx, stream, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, env := range envs {
			if env.Type != login.TypeConnected {
				continue
			}
			var ev login.Connected
			if err := json.Unmarshal(env.Data, &ev); err != nil {
				t.Fatal(err)
			}
			n++
			if _, err := srv.M.Vault.Open(ctx, ev.Credential, "mcp-login-credentials"); err == nil {
				t.Errorf("%s's credential still opens after its agent's logins were removed", stream)
			}
		}
		if n == 0 {
			t.Errorf("%s holds no login.connected", stream)
		}
	}
	if text, _, _ := run(""); text != "account acme-team" {
		t.Errorf("with the agent's accounts gone, the organisation's runs: %q", text)
	}
}
