package main

// End-to-end test of approvals: a tool switched to Ask at an agent is held back for a person. Over MCP
// with the official Go SDK: a client without elicitation gets APPROVAL_REQUIRED, the user approves in
// the portal's API, and the call made again with the approval_id runs exactly once (a replay, changed
// arguments and a denial are refused); a client with elicitation asks its user, and accept runs the
// call once while decline runs nothing; "always allow" switches the tool On for the agent. The remote
// MCP server counts the calls that reach it.

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

func TestApprovalsEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const tok = "tok-approvals-0123"
	remote := connectorstest.NewRemote(t, tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	agent := organization.DefaultAgentID(ada.ID)
	owner := login.Owner{Scope: login.ScopeAgent, ID: agent}
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: owner, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	portal := func(user uuid.UUID, method, path string, body any) (int, map[string]any) {
		t.Helper()
		var rd *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.Base)
		cookie, err := srv.M.Sessions.Cookie(user)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // a 204 has no body
		return resp.StatusCode, out
	}
	if status, body := portal(ada.ID, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "state": "ask"}); status != http.StatusNoContent {
		t.Fatalf("switch remote_echo to Ask: %d %v", status, body)
	}
	if status, body := portal(ada.ID, http.MethodPut, "/api/mcp/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "state": "ask", "on": false}); status != http.StatusBadRequest {
		t.Fatalf("state ask with on false: %d %v, want 400", status, body)
	}

	session := func(handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: handler}).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp", HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	type entry struct {
		Error, Message, ApprovalID, URL string
		Text                            string
	}
	run := func(cs *mcp.ClientSession, text, approvalID string) entry {
		t.Helper()
		x := ex("remote_echo", map[string]any{"text": text})
		if approvalID != "" {
			x["approval_id"] = approvalID
		}
		r := execute(t, cs, x).Results[0]
		var e entry
		json.Unmarshal(r["error"], &e.Error)            //nolint:errcheck // absent on success
		json.Unmarshal(r["message"], &e.Message)        //nolint:errcheck // absent on success
		json.Unmarshal(r["approval_id"], &e.ApprovalID) //nolint:errcheck // only for APPROVAL_REQUIRED
		json.Unmarshal(r["url"], &e.URL)                //nolint:errcheck // only for APPROVAL_REQUIRED
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(r["result"], &res) //nolint:errcheck // absent on failure
		if len(res.Content) > 0 {
			e.Text = res.Content[0].Text
		}
		return e
	}

	// A client without elicitation: APPROVAL_REQUIRED, nothing reaches the remote.
	plain := session(nil)
	held := run(plain, "hi", "")
	if held.Error != "APPROVAL_REQUIRED" || held.ApprovalID == "" || held.URL != srv.Base+"/approvals/"+held.ApprovalID || !strings.Contains(held.Message, "approval_id") {
		t.Fatalf("an Ask tool without elicitation: %+v", held)
	}
	if remote.Calls.Load() != 0 {
		t.Fatal("a held-back call reached the remote")
	}
	// The inbox shows it with its arguments; bob, another user, is told there is no such approval.
	if status, body := portal(ada.ID, http.MethodGet, "/api/approvals", nil); status != http.StatusOK || !strings.Contains(fmt.Sprint(body), held.ApprovalID) || !strings.Contains(fmt.Sprint(body), "text:hi") {
		t.Fatalf("ada's inbox: %d %v", status, body)
	}
	if status, _ := portal(bob.ID, http.MethodGet, "/api/approvals/"+held.ApprovalID, nil); status != http.StatusNotFound {
		t.Fatalf("bob reads ada's approval: %d, want 404", status)
	}
	if status, _ := portal(bob.ID, http.MethodPost, "/api/approvals/"+held.ApprovalID+"/approve", nil); status != http.StatusNotFound {
		t.Fatalf("bob approves ada's approval: %d, want 404", status)
	}
	// Changed arguments are refused and spend nothing.
	if e := run(plain, "something else", held.ApprovalID); e.Error != "APPROVAL_INVALID" || remote.Calls.Load() != 0 {
		t.Fatalf("changed arguments: %+v, %d calls", e, remote.Calls.Load())
	}
	// The retried call waits for the decision, made meanwhile in the portal, and runs once.
	done := make(chan entry, 1)
	go func() { done <- run(plain, "hi", held.ApprovalID) }()
	if status, body := portal(ada.ID, http.MethodPost, "/api/approvals/"+held.ApprovalID+"/approve", nil); status != http.StatusOK {
		t.Fatalf("approve: %d %v", status, body)
	}
	select {
	case e := <-done:
		if e.Text != "echo: hi" || remote.Calls.Load() != 1 {
			t.Fatalf("the approved call: %+v, %d calls", e, remote.Calls.Load())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the call waiting for its approval never answered")
	}
	// The user's receipts show who approved what, and how.
	eventually(t, "the receipts show the approval", 30*time.Second, func() error {
		status, body := portal(ada.ID, http.MethodGet, "/api/audit/receipts?integration=mcp_remote&limit=100", nil)
		b, _ := json.Marshal(body)
		if status != http.StatusOK || !strings.Contains(string(b), `"kind":"approval_approved"`) || !strings.Contains(string(b), `"approval_via":"portal"`) ||
			!strings.Contains(string(b), `"kind":"approval_used"`) {
			return fmt.Errorf("%d %s", status, b)
		}
		return nil
	})
	// A replayed approval is refused.
	if e := run(plain, "hi", held.ApprovalID); e.Error != "APPROVAL_INVALID" || !strings.Contains(e.Message, "used") || remote.Calls.Load() != 1 {
		t.Fatalf("a replay: %+v, %d calls", e, remote.Calls.Load())
	}
	// A denial.
	second := run(plain, "again", "")
	if status, _ := portal(ada.ID, http.MethodPost, "/api/approvals/"+second.ApprovalID+"/deny", nil); status != http.StatusOK {
		t.Fatalf("deny: %d", status)
	}
	if e := run(plain, "again", second.ApprovalID); e.Error != "APPROVAL_DENIED" || remote.Calls.Load() != 1 {
		t.Fatalf("a denied call: %+v, %d calls", e, remote.Calls.Load())
	}

	// A client with elicitation asks its user: accept runs once, decline runs nothing.
	var asked atomic.Value
	answer := func(action string) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Store(req.Params.Message)
			return &mcp.ElicitResult{Action: action}, nil
		}
	}
	if e := run(session(answer("accept")), "yes", ""); e.Text != "echo: yes" || remote.Calls.Load() != 2 {
		t.Fatalf("accepted through elicitation: %+v, %d calls", e, remote.Calls.Load())
	}
	if msg, _ := asked.Load().(string); !strings.Contains(msg, "remote_echo") || !strings.Contains(msg, "mcp_remote") || !strings.Contains(msg, `"text":"yes"`) {
		t.Fatalf("the user was asked %q", msg)
	}
	if e := run(session(answer("decline")), "no", ""); e.Error != "APPROVAL_DENIED" || remote.Calls.Load() != 2 {
		t.Fatalf("declined through elicitation: %+v, %d calls", e, remote.Calls.Load())
	}

	// Every held-back or approved call's record names its approval; the approval's stream says who
	// decided and how.
	codes := map[string]int{}
	for _, env := range srv.settledEvents(t, execution.TypeToolExecuted, 8) {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev) //nolint:errcheck // a malformed record fails the counts
		if ev.ApprovalID == uuid.Nil && ev.ErrorCode != "APPROVAL_INVALID" {
			t.Errorf("a record without its approval: %+v", ev)
		}
		codes[ev.ErrorCode]++
	}
	if codes[""] != 2 || codes["APPROVAL_REQUIRED"] != 2 || codes["APPROVAL_DENIED"] != 2 || codes["APPROVAL_INVALID"] != 2 {
		t.Errorf("records by code: %v", codes)
	}
	envs, err := srv.M.Store.Load(ctx, approval.StreamName(uuid.MustParse(held.ApprovalID)), 0)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, e := range envs {
		types = append(types, e.Type)
	}
	if strings.Join(types, " ") != "approval.requested approval.approved approval.used" {
		t.Errorf("the first approval's stream: %v", types)
	}

	// "Always allow": approving with always switches the tool On for the agent; the next call runs
	// without asking.
	third := run(plain, "always", "")
	if status, body := portal(ada.ID, http.MethodPost, "/api/approvals/"+third.ApprovalID+"/approve", map[string]bool{"always": true}); status != http.StatusOK {
		t.Fatalf("approve always: %d %v", status, body)
	}
	if e := run(plain, "free", ""); e.Text != "echo: free" {
		t.Fatalf("after always allow: %+v", e)
	}

	// A plugin tool asks the same way.
	if status, body := portal(ada.ID, http.MethodPut, "/api/tools/switches", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": "utils_echo", "state": "ask"}); status != http.StatusNoContent {
		t.Fatalf("switch utils_echo to Ask: %d %v", status, body)
	}
	r := execute(t, plain, ex("utils_echo", map[string]any{"message": "plug"})).Results[0]
	if !strings.Contains(string(r["error"]), "APPROVAL_REQUIRED") {
		t.Fatalf("an Ask plugin tool: %v", r)
	}
	// search_tools tells the agent which tools ask; a curl session, which would reach what an Ask tool
	// does without the approval, is refused for its integration.
	if s := callText(t, plain, "search_tools", map[string]any{"query": "echo"}); !strings.Contains(s, `"name":"utils_echo","description"`) ||
		!strings.Contains(s, `"asks_approval":true`) {
		t.Fatalf("search_tools does not say utils_echo asks: %s", s)
	}
	if s := callError(t, plain, "curl_session", map[string]any{"integrations": []string{"utils"}}); !strings.Contains(s, "TOOLS_ASK") {
		t.Fatalf("a curl session over an integration with an Ask tool: %s", s)
	}
}

// An organisation's owners, admins and approvers decide the approvals of its members' agents: bob's
// agent in Acme asks, ada (Acme's owner) and dave (an approver) find it in their inbox, dave approves
// it, and bob's call runs; carol, a plain member of Acme, neither sees nor decides it.
func TestApprovalsByOrganisationAdmin(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tok = "tok-approvals-admin-0123"
	remote := connectorstest.NewRemote(t, tok)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada, bob, carol, dave := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com"), srv.user(t, "carol@example.com"), srv.user(t, "dave@example.com")
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	orgs := srv.M.Organizations
	for _, u := range []e2eUser{ada, bob, carol, dave} {
		if err := orgs.SignedIn(ctx, u.ID, u.Email, md); err != nil {
			t.Fatal(err)
		}
	}
	acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []e2eUser{bob, carol, dave} {
		role := organization.RoleMember
		if u.ID == dave.ID {
			role = organization.RoleApprover
		}
		if _, err := orgs.Invite(ctx, ada.ID, acme, u.Email, role, md); err != nil {
			t.Fatal(err)
		}
		inv, err := orgs.PendingInvitations(ctx, u.Email)
		if err != nil || len(inv) != 1 {
			t.Fatalf("%s's invitations: %v %v", u.Email, inv, err)
		}
		if _, err := orgs.AcceptInvitation(ctx, u.ID, u.Email, inv[0].ID, md); err != nil {
			t.Fatal(err)
		}
	}
	bot, err := orgs.CreateAgent(ctx, bob.ID, acme, "bob-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	key, pos, err := srv.M.Accounts.MintOrRotateAgent(ctx, bob.ID, bot, md)
	if err != nil {
		t.Fatal(err)
	}
	srv.waitFor(t, pos)
	orgOwner := login.Owner{Scope: login.ScopeOrganization, ID: acme}
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: orgOwner, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	if err := srv.M.Connectors.AskSwitch(ctx, ada.ID, orgOwner, "mcp_remote", "remote_echo"); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: key.Secret, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	x := ex("remote_echo", map[string]any{"text": "from bob"})
	r := execute(t, cs, x).Results[0]
	var id string
	json.Unmarshal(r["approval_id"], &id) //nolint:errcheck // checked below
	if id == "" {
		t.Fatalf("bob's agent's call: %v", r)
	}
	inbox := func(u e2eUser) string {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.Base+"/api/approvals", nil)
		cookie, _ := srv.M.Sessions.Cookie(u.ID)
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 1<<16)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return b.String()
	}
	if s := inbox(ada); !strings.Contains(s, id) {
		t.Fatalf("ada's inbox (Acme's owner) lacks bob's agent's approval: %s", s)
	}
	if s := inbox(dave); !strings.Contains(s, id) {
		t.Fatalf("dave's inbox (Acme's approver) lacks it: %s", s)
	}
	if s := inbox(carol); strings.Contains(s, id) {
		t.Fatalf("carol's inbox (a plain member) shows it: %s", s)
	}
	decide := func(u e2eUser) int {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.Base+"/api/approvals/"+id+"/approve", nil)
		req.Header.Set("Origin", srv.Base)
		cookie, _ := srv.M.Sessions.Cookie(u.ID)
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if status := decide(carol); status != http.StatusNotFound {
		t.Fatalf("carol approves: %d, want 404", status)
	}
	if status := decide(dave); status != http.StatusOK {
		t.Fatalf("dave (an approver) approves: %d", status)
	}
	x["approval_id"] = id
	if r := execute(t, cs, x).Results[0]; !strings.Contains(string(r["result"]), "echo: from bob") || remote.Calls.Load() != 1 {
		t.Fatalf("bob's approved call: %v, %d calls", r, remote.Calls.Load())
	}
}
