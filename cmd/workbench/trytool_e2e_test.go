package main

// Try a tool (issue 30, item 6) over real HTTP on SQLite and PostgreSQL: the portal's /api/try routes
// list the tools a user reaches, read one's schema and run it through execute_tools' own path,
// recorded with via "portal"; a plain member of an organisation whose owner switched the tool Off is
// refused (TOOL_OFF, and its schema 403) when he acts as his agent there; he cannot act as another
// user's agent; a cross-origin run is 403 and a run without a session 401, neither recorded; bad
// input is 400 and runs nothing; and an organisation's budget counts portal runs (RATE_LIMITED).

import (
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

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

func TestTryToolRoutes(t *testing.T) {
	t.Parallel()
	for _, backend := range []string{"sqlite", "postgres"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "wb.db")
			if backend == "postgres" {
				db = testenv.PostgresURL(t)
			}
			testTryToolRoutes(t, startE2E(t, db, nil, slog.LevelWarn))
		})
	}
}

func testTryToolRoutes(t *testing.T, srv *e2eServer) {
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
	// The agents read model has bob-bot once the agents route lists it (bounded wait).
	deadline := time.Now().Add(20 * time.Second)
	for {
		code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/agents", nil)
		if code == http.StatusOK && strings.Contains(body, bobBot.String()) && strings.Contains(body, `"organization":"Acme"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /api/try/agents never listed bob-bot in Acme: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	portalExecutions := func() int {
		n := 0
		for _, e := range srv.events(t, execution.TypeToolExecuted) {
			var rec execution.ToolExecuted
			if err := json.Unmarshal(e.Data, &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Via == "portal" {
				n++
			}
		}
		return n
	}
	type runAnswer struct {
		OK    bool            `json:"ok"`
		Code  string          `json:"code"`
		Entry json.RawMessage `json:"entry"`
	}
	run := func(user uuid.UUID, body any) (int, runAnswer, string) {
		t.Helper()
		code, raw := portalDo(t, srv.M, user, http.MethodPost, srv.Base+"/api/try/run", body)
		var a runAnswer
		if code == http.StatusOK {
			if err := json.Unmarshal([]byte(raw), &a); err != nil {
				t.Fatalf("run answer: %v: %s", err, raw)
			}
		}
		return code, a, raw
	}

	// Listing and schema, as bob's default agent.
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools?q=echo", nil); code != http.StatusOK || !strings.Contains(body, `"name":"utils_echo"`) {
		t.Fatalf("GET /api/try/tools?q=echo: %d %s", code, body)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools?integration=utils", nil); code != http.StatusOK || !strings.Contains(body, `"name":"utils_echo"`) || !strings.Contains(body, `"name":"utils_time"`) {
		t.Fatalf("GET /api/try/tools?integration=utils (no query: all of them): %d %s", code, body)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools/utils_echo", nil); code != http.StatusOK || !strings.Contains(body, `"inputSchema"`) || !strings.Contains(body, `"message"`) {
		t.Fatalf("GET /api/try/tools/utils_echo: %d %s", code, body)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools/nope_nothing", nil); code != http.StatusNotFound {
		t.Fatalf("the schema of no tool: %d %s", code, body)
	}

	// A run: the result, and one execution record with via "portal" for bob.
	code, a, raw := run(bob.ID, map[string]any{"tool": "utils_echo", "args": map[string]any{"message": "hi from the portal"}})
	if code != http.StatusOK || !a.OK || a.Code != "" || !strings.Contains(string(a.Entry), "hi from the portal") {
		t.Fatalf("run utils_echo: %d %s", code, raw)
	}
	recs := srv.events(t, execution.TypeToolExecuted)
	if len(recs) != 1 {
		t.Fatalf("%d execution records after one run, want 1", len(recs))
	}
	var rec execution.ToolExecuted
	if err := json.Unmarshal(recs[0].Data, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Via != "portal" || rec.UserID != bob.ID || rec.Tool != "utils_echo" || !rec.Success || rec.AgentID != uuid.Nil {
		t.Fatalf("the record of a portal run: %+v", rec)
	}

	// Bad input is 400 and runs nothing.
	for name, body := range map[string]any{
		"args not an object": map[string]any{"tool": "utils_echo", "args": []int{1}},
		"a bad account":      map[string]any{"tool": "utils_echo", "account": "Not A Label"},
		"an unknown field":   map[string]any{"tool": "utils_echo", "extra": true},
		"no tool":            map[string]any{"args": map[string]any{}},
		"a bad agent":        map[string]any{"tool": "utils_echo", "agent": "not-a-uuid"},
	} {
		if code, _, raw := run(bob.ID, body); code != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", name, code, raw)
		}
	}
	// Arguments that fail the tool's schema are the execution's INVALID_ARGUMENTS, recorded as any.
	if code, a, raw := run(bob.ID, map[string]any{"tool": "utils_echo", "args": map[string]any{"message": 7}}); code != http.StatusOK || a.OK || a.Code != "INVALID_ARGUMENTS" {
		t.Fatalf("a run with arguments its schema refuses: %d %s", code, raw)
	}

	// Cross-origin and unsigned runs are refused and not recorded.
	before := portalExecutions()
	cookie, err := srv.M.Sessions.Cookie(bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.Base+"/api/try/run", strings.NewReader(`{"tool":"utils_echo","args":{"message":"x"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://evil.example")
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(b), "CROSS_ORIGIN") {
		t.Fatalf("a cross-origin run: %d %s", resp.StatusCode, b)
	}
	req, _ = http.NewRequest(http.MethodPost, srv.Base+"/api/try/run", strings.NewReader(`{"tool":"utils_echo"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.Base)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a run without a session: %d", resp.StatusCode)
	}
	if n := portalExecutions(); n != before {
		t.Fatalf("refused runs were recorded: %d portal executions, want %d", n, before)
	}

	// Bob may not act as ada's agent (nor may the page name one): 403, nothing run.
	if code, _, raw := run(bob.ID, map[string]any{"tool": "utils_echo", "agent": organization.DefaultAgentID(ada.ID).String()}); code != http.StatusForbidden {
		t.Fatalf("bob acting as ada's agent: %d %s", code, raw)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools?q=echo&agent="+organization.DefaultAgentID(ada.ID).String(), nil); code != http.StatusForbidden {
		t.Fatalf("bob listing as ada's agent: %d %s", code, body)
	}

	// Ada, Acme's owner, switches utils_echo Off for the organisation. Bob, a plain member, may not
	// switch it back On there; acting as bob-bot (in Acme) he is refused with TOOL_OFF and its schema
	// is 403; as his default agent (his personal organisation) it still runs.
	sw := func(on bool) map[string]any {
		return map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "tool": "utils_echo", "on": on}
	}
	if code, body := portalDo(t, srv.M, ada.ID, http.MethodPut, srv.Base+"/api/tools/switches", sw(false)); code != http.StatusNoContent {
		t.Fatalf("the owner's Off at Acme: %d %s", code, body)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodPut, srv.Base+"/api/tools/switches", sw(true)); code != http.StatusForbidden && code != http.StatusNotFound {
		t.Fatalf("a member switching Acme's tool On: %d %s", code, body)
	}
	code, a, raw = run(bob.ID, map[string]any{"tool": "utils_echo", "args": map[string]any{"message": "x"}, "agent": bobBot.String()})
	if code != http.StatusOK || a.OK || a.Code != "TOOL_OFF" || !strings.Contains(string(a.Entry), "switched Off by organisation Acme") {
		t.Fatalf("a run of a tool Acme switched Off, as bob-bot: %d %s", code, raw)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools/utils_echo?agent="+bobBot.String(), nil); code != http.StatusForbidden {
		t.Fatalf("the schema of a tool switched Off, as bob-bot: %d %s", code, body)
	}
	if code, body := portalDo(t, srv.M, bob.ID, http.MethodGet, srv.Base+"/api/try/tools?q=echo&agent="+bobBot.String(), nil); code != http.StatusOK || !strings.Contains(body, `"unavailable":[{"name":"utils_echo"`) {
		t.Fatalf("the listing as bob-bot does not name utils_echo unavailable: %d %s", code, body)
	}
	var off execution.ToolExecuted
	last := srv.events(t, execution.TypeToolExecuted)
	if err := json.Unmarshal(last[len(last)-1].Data, &off); err != nil {
		t.Fatal(err)
	}
	if off.Via != "portal" || off.AgentID != bobBot || off.ErrorCode != "TOOL_OFF" || off.Success {
		t.Fatalf("the record of the refused run: %+v", off)
	}
	if code, a, raw := run(bob.ID, map[string]any{"tool": "utils_echo", "args": map[string]any{"message": "personal"}}); code != http.StatusOK || !a.OK {
		t.Fatalf("the run as bob's default agent, outside Acme: %d %s", code, raw)
	}

	// Acme's budget counts portal runs: one utils_uuid a minute, so bob-bot's second run is refused.
	if code, body := portalDo(t, srv.M, ada.ID, http.MethodPut, srv.Base+"/api/budgets",
		map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "tool": "utils_uuid", "per_minute": 1}); code != http.StatusNoContent {
		t.Fatalf("Acme's budget: %d %s", code, body)
	}
	uuidRun := map[string]any{"tool": "utils_uuid", "agent": bobBot.String()}
	if code, a, raw := run(bob.ID, uuidRun); code != http.StatusOK || !a.OK {
		t.Fatalf("the first utils_uuid under Acme's budget: %d %s", code, raw)
	}
	if code, a, raw := run(bob.ID, uuidRun); code != http.StatusOK || a.OK || a.Code != "RATE_LIMITED" {
		t.Fatalf("the second utils_uuid within the minute: %d %s, want RATE_LIMITED", code, raw)
	}
}
