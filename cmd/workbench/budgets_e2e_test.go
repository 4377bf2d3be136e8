package main

// End-to-end test of budgets: an agent's calls past its scope's rate limit are refused with
// RATE_LIMITED and never reach the remote, exactly at the limit under 64 concurrent calls; the
// refusals are recorded; a budget on one tool binds that tool only; the portal API shows the use.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

// writeRemoteConnector writes a token connector manifest for remote into a new CONNECTORS_DIR.
func writeRemoteConnector(t *testing.T, remote *connectorstest.Remote) string {
	t.Helper()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestBudgetsEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const tok = "tok-budgets-0123"
	remote := connectorstest.NewRemote(t, tok)
	// The budgets' clock stands still, so that no token refills while the 64 calls run.
	var clock atomic.Pointer[time.Time]
	start := time.Now().UTC().Truncate(time.Hour).Add(30 * time.Minute)
	clock.Store(&start)
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"},
		slog.LevelWarn, func(m *Main) { m.BudgetClock = func() time.Time { return *clock.Load() } })
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	agent := organization.DefaultAgentID(ada.ID)
	org := organization.PersonalOrganizationID(ada.ID)
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
		cookie, err := srv.M.Sessions.Cookie(user.ID)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out strings.Builder
		buf := make([]byte, 4096)
		for {
			n, err := resp.Body.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				break
			}
		}
		return resp.StatusCode, out.String()
	}
	// Ten calls a minute for every tool of ada's organisation's agents. Bob, who does not manage it,
	// can neither set nor read it; a malformed budget is refused.
	if status, body := portal(ada, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "organization", "owner_id": org.String(), "per_minute": 10}); status != http.StatusNoContent {
		t.Fatalf("set the budget: %d %s", status, body)
	}
	if status, _ := portal(bob, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "organization", "owner_id": org.String(), "per_minute": 1000}); status != http.StatusForbidden && status != http.StatusNotFound {
		t.Fatalf("bob sets ada's organisation's budget: %d", status)
	}
	if status, _ := portal(ada, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "organization", "owner_id": org.String(), "per_minute": -1}); status != http.StatusBadRequest {
		t.Fatalf("a negative limit: %d", status)
	}

	const sessions, each = 8, 8
	var ran, limited atomic.Int64
	var wrong sync.Map
	var wg sync.WaitGroup
	for range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{ex("remote_echo", map[string]any{"text": "x"})}}})
				if err != nil {
					wrong.Store(err.Error(), true)
					return
				}
				text := res.Content[0].(*mcp.TextContent).Text
				switch {
				case strings.Contains(text, "echo: x"):
					ran.Add(1)
				case strings.Contains(text, `"error":"RATE_LIMITED"`) && strings.Contains(text, `"retry_after_s":6`):
					limited.Add(1)
				default:
					wrong.Store(text, true)
				}
			}()
		}
	}
	wg.Wait()
	wrong.Range(func(k, _ any) bool { t.Errorf("an unexpected answer: %v", k); return true })
	if ran.Load() != 10 || limited.Load() != 54 || remote.Calls.Load() != 10 {
		t.Fatalf("64 calls against 10 a minute: %d ran, %d RATE_LIMITED, %d reached the remote; want 10, 54, 10", ran.Load(), limited.Load(), remote.Calls.Load())
	}
	// The refusals are recorded.
	codes := map[string]int{}
	for _, env := range srv.settledEvents(t, execution.TypeToolExecuted, 64) {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev) //nolint:errcheck // a malformed record fails the counts
		codes[ev.ErrorCode]++
	}
	if codes[""] != 10 || codes["RATE_LIMITED"] != 54 {
		t.Errorf("records by code: %v", codes)
	}
	// The portal shows the use.
	if status, body := portal(ada, http.MethodGet, "/api/budgets?owner_scope=organization&owner_id="+org.String(), nil); status != http.StatusOK ||
		!strings.Contains(body, `"tool":"*"`) || !strings.Contains(body, `"per_minute":10`) || !strings.Contains(body, `"today":10`) {
		t.Fatalf("the organisation's budgets: %d %s", status, body)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	runEcho := func(tool string) string {
		t.Helper()
		args := map[string]any{"text": "y"}
		if tool == "utils_echo" {
			args = map[string]any{"message": "y"}
		}
		r := execute(t, cs, ex(tool, args)).Results[0]
		b, _ := json.Marshal(r)
		return string(b)
	}
	// Six seconds later the bucket holds one call again.
	later := start.Add(6 * time.Second)
	clock.Store(&later)
	if s := runEcho("remote_echo"); !strings.Contains(s, "echo: y") {
		t.Fatalf("a refilled token: %s", s)
	}
	if s := runEcho("remote_echo"); !strings.Contains(s, "RATE_LIMITED") {
		t.Fatalf("the bucket is empty again: %s", s)
	}
	// A curl session, whose requests budgets cannot count, is refused while a budget covers the
	// integration's tools.
	if s := callError(t, cs, "curl_session", map[string]any{"integrations": []string{"utils"}}); !strings.Contains(s, "BUDGETED") {
		t.Fatalf("a curl session under a budget on every tool: %s", s)
	}
	// A budget on one tool binds that tool only: with the organisation's limit lifted, remote_echo
	// gets two calls a day at the agent, utils_echo is not counted.
	if status, body := portal(ada, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "organization", "owner_id": org.String(), "per_minute": 0}); status != http.StatusNoContent {
		t.Fatalf("lift the organisation's budget: %d %s", status, body)
	}
	if status, body := portal(ada, http.MethodPut, "/api/budgets", map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": "remote_echo", "per_day": 2}); status != http.StatusNoContent {
		t.Fatalf("set the tool's budget: %d %s", status, body)
	}
	for i := range 2 {
		if s := runEcho("remote_echo"); !strings.Contains(s, "echo: y") {
			t.Fatalf("call %d of 2 a day: %s", i+1, s)
		}
	}
	if s := runEcho("remote_echo"); !strings.Contains(s, "RATE_LIMITED") || !strings.Contains(s, "2 calls a day") {
		t.Fatalf("the third call of 2 a day: %s", s)
	}
	for range 3 {
		if s := runEcho("utils_echo"); strings.Contains(s, "RATE_LIMITED") {
			t.Fatalf("another tool was counted: %s", s)
		}
	}
}
