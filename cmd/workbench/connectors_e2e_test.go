package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

type bearer struct {
	key  string
	next http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return b.next.RoundTrip(r)
}

// A remote MCP tool reaches an agent through the meta-tools of the served /mcp, with a real MCP
// client on both sides: search_tools finds it by its prefixed name, get_tool_schema gives its
// schema, execute_tools runs it (audited as a plugin call), and once switched Off it is neither
// found nor run.
func TestConnectorToolsThroughTheMetaTools(t *testing.T) {
	const tok = "tok-e2e-remote-0123"
	remote := connectorstest.NewRemote(t, tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(t, "ada@example.com")
	ctx := context.Background()
	agent := login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(user.ID)} // the API key's agent
	if _, err := srv.M.Connectors.Connect(ctx, user.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: agent, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: user.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	found := call("search_tools", map[string]any{"query": "echo"})
	if !strings.Contains(found, `"name":"remote_echo"`) || !strings.Contains(found, `"integration":"mcp_remote"`) {
		t.Fatalf("search_tools = %s", found)
	}
	if s := call("search_tools", map[string]any{"query": "wipe"}); strings.Contains(s, "remote_wipe_everything") {
		t.Fatalf("an Off tool was found: %s", s)
	}
	if s := call("get_tool_schema", map[string]any{"tool": "remote_echo"}); !strings.Contains(s, `"inputSchema"`) || !strings.Contains(s, `"text"`) {
		t.Fatalf("get_tool_schema = %s", s)
	}
	out := call("execute_tools", map[string]any{"executions": []any{map[string]any{"tool": "remote_echo", "args": map[string]any{"text": "hello"}}}})
	if !strings.Contains(out, "echo: hello") {
		t.Fatalf("execute_tools = %s", out)
	}
	recs := srv.settledEvents(t, execution.TypeToolExecuted, 1)
	var rec execution.ToolExecuted
	json.Unmarshal(recs[0].Data, &rec)
	if rec.Tool != "remote_echo" || rec.Integration != "mcp_remote" || !rec.Success || rec.UserID != user.ID {
		t.Fatalf("record = %+v", rec)
	}
	if err := srv.M.Connectors.SetSwitch(ctx, user.ID, agent, "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	if s := call("search_tools", map[string]any{"query": "echo"}); strings.Contains(s, "remote_echo") {
		t.Fatalf("a switched-off tool was found: %s", s)
	}
	out = call("execute_tools", map[string]any{"executions": []any{map[string]any{"tool": "remote_echo", "args": map[string]any{"text": "x"}}}})
	if !strings.Contains(out, "Unknown tool: remote_echo") {
		t.Fatalf("a switched-off tool ran: %s", out)
	}
}
