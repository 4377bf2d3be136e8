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

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
)

// The instance admin's default for a plugin tool (PUT /api/tools/switches at the platform with
// "default": true) is the first rule of what starts Off: it decides before mutating and the name
// rules, and any scope below may switch the tool either way, unlike the admin's platform Off, which
// binds. Only the admin sets one, and only at the platform.
func TestPluginToolAdminDefault(t *testing.T) {
	t.Parallel()
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"WORKBENCH_ADMINS": "root@example.com"}, slog.LevelWarn)
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	root, bob := srv.user(t, "root@example.com"), srv.user(t, "bob@example.com")
	if err := srv.M.Organizations.SignedIn(ctx, bob.ID, bob.Email, md); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: bob.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	run := func(tool string) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{
			map[string]any{"tool": tool, "args": map[string]any{"message": "hi"}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	schema := func(tool string) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_tool_schema", Arguments: map[string]any{"tool": tool}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	put := func(user uuid.UUID, body map[string]any) (int, string) {
		t.Helper()
		return portalDo(t, srv.M, user, http.MethodPut, srv.Base+"/api/tools/switches", body)
	}
	platform := func(tool string, on, asDefault bool) map[string]any {
		return map[string]any{"owner_scope": "platform", "tool": tool, "on": on, "default": asDefault}
	}
	agent := identitydom.DefaultAgentID(bob.ID) // the agent bob's API key acts as
	mine := func(tool string, on bool) map[string]any {
		return map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": tool, "on": on}
	}

	// The admin's default Off for a read tool: Off for every agent, saying why, until a scope below
	// switches it On, which a default allows.
	if code, body := put(root.ID, platform("utils_echo", false, true)); code != http.StatusNoContent {
		t.Fatalf("the admin's default Off: %d %s", code, body)
	}
	const byDefault = "Off by default at the platform (admin_default)"
	if out := run("utils_echo"); !strings.Contains(out, "did not run") || !strings.Contains(out, byDefault) {
		t.Fatalf("utils_echo under the admin's default Off: %s", out)
	}
	if code, body := put(bob.ID, mine("utils_echo", true)); code != http.StatusNoContent {
		t.Fatalf("the member's On below the admin's default: %d %s", code, body)
	}
	if out := run("utils_echo"); !strings.Contains(out, "hi") || strings.Contains(out, "did not run") {
		t.Fatalf("utils_echo once the member switched it On: %s", out)
	}

	// The admin's default On for a mutating tool comes before the mutating rule: it starts On.
	if _, isErr := schema("github_create_issue"); !isErr {
		t.Fatal("github_create_issue is offered before any default: it is mutating")
	}
	if code, body := put(root.ID, platform("github_create_issue", true, true)); code != http.StatusNoContent {
		t.Fatalf("the admin's default On: %d %s", code, body)
	}
	if out, isErr := schema("github_create_issue"); isErr {
		t.Fatalf("github_create_issue under the admin's default On: %s", out)
	}
	code, body := portalDo(t, srv.M, root.ID, http.MethodGet, srv.Base+"/api/tools/switches?owner_scope=platform", nil)
	var views struct {
		Tools []map[string]any `json:"tools"`
	}
	if err := json.Unmarshal([]byte(body), &views); code != http.StatusOK || err != nil {
		t.Fatalf("the platform's view: %d %v %s", code, err, body)
	}
	for _, v := range views.Tools {
		if v["name"] == "github_create_issue" && (v["default"] != true || v["switch"] != nil || v["starts_off"] != nil) {
			t.Errorf("the platform's view of github_create_issue: %v; want the default On, no switch, nothing starting it Off", v)
		}
	}

	// The admin's platform Off (not a default) still binds: the member cannot lift it.
	if code, body := put(root.ID, platform("utils_echo", false, false)); code != http.StatusNoContent {
		t.Fatalf("the admin's platform Off: %d %s", code, body)
	}
	if out := run("utils_echo"); !strings.Contains(out, "did not run") {
		t.Fatalf("utils_echo under the platform's Off: %s", out)
	}
	if code, body := put(bob.ID, mine("utils_echo", true)); code != http.StatusConflict {
		t.Fatalf("the member's On below the platform's Off: %d %s", code, body)
	}

	// Only the admin sets a default, and only at the platform.
	if code, body := put(bob.ID, platform("utils_hash", false, true)); code != http.StatusForbidden {
		t.Fatalf("the member's default at the platform: %d %s", code, body)
	}
	if code, body := put(bob.ID, map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "tool": "utils_hash", "on": false, "default": true}); code != http.StatusBadRequest {
		t.Fatalf("a default below the platform: %d %s", code, body)
	}
}
