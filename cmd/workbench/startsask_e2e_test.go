package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

// An organisation may choose that what starts Off (a destructive or mutating tool) asks instead: the
// remote's destructive tool, Off for the agent, then asks for approval; a mutating plugin tool is
// offered as asking; an explicit Off stays Off; someone who does not manage the organisation cannot
// choose.
func TestMutatingStartsAsAsk(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tok = "tok-startsask-0123"
	remote := connectorstest.NewRemote(t, tok)
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
		b2 := make([]byte, 8192)
		n, _ := resp.Body.Read(b2)
		out.Write(b2[:n])
		return resp.StatusCode, out.String()
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wipe := func() string {
		r := execute(t, cs, ex("remote_wipe_everything", map[string]any{"text": "x"})).Results[0]
		b, _ := json.Marshal(r)
		return string(b)
	}
	if s := wipe(); !strings.Contains(s, "Unknown tool") {
		t.Fatalf("a destructive tool before the choice: %s", s)
	}
	if status, _ := portal(bob, http.MethodPut, "/api/tools/start-preference", map[string]string{"organization_id": org.String(), "mutating_starts_as": "ask"}); status/100 == 2 {
		t.Fatalf("bob chose for ada's organisation: %d", status)
	}
	if status, body := portal(ada, http.MethodPut, "/api/tools/start-preference", map[string]string{"organization_id": org.String(), "mutating_starts_as": "sometimes"}); status != http.StatusBadRequest {
		t.Fatalf("a value that is not off or ask: %d %s", status, body)
	}
	if status, body := portal(ada, http.MethodPut, "/api/tools/start-preference", map[string]string{"organization_id": org.String(), "mutating_starts_as": "ask"}); status != http.StatusNoContent {
		t.Fatalf("choose ask: %d %s", status, body)
	}
	if status, body := portal(ada, http.MethodGet, "/api/tools/start-preference?organization_id="+org.String(), nil); status != http.StatusOK || !strings.Contains(body, `"ask"`) {
		t.Fatalf("read the choice: %d %s", status, body)
	}
	if s := wipe(); !strings.Contains(s, "APPROVAL_REQUIRED") || remote.Calls.Load() != 0 {
		t.Fatalf("a destructive tool after choosing ask: %s", s)
	}
	if s := callText(t, cs, "search_tools", map[string]any{"query": "create issue", "integration": "github"}); !strings.Contains(s, `"name":"github_create_issue"`) || !strings.Contains(s, `"asks_approval":true`) {
		t.Fatalf("a mutating plugin tool after choosing ask: %s", s)
	}
	// An explicit Off is not a start-Off rule: it stays Off.
	if status, body := portal(ada, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_wipe_everything", "on": false}); status != http.StatusNoContent {
		t.Fatalf("switch Off: %d %s", status, body)
	}
	if s := wipe(); !strings.Contains(s, "Unknown tool") {
		t.Fatalf("an explicit Off under ask: %s", s)
	}
}
