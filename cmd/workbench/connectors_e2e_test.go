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
	"time"

	"github.com/google/uuid"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
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
	t.Parallel()
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
	if s := call("search_tools", map[string]any{"query": "wipe"}); !strings.Contains(s, `"tools":[]`) || !strings.Contains(s, "Off by default") {
		t.Fatalf("an Off tool was found, or not said why: %s", s)
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
	if s := call("search_tools", map[string]any{"query": "echo"}); strings.Contains(s, `{"name":"remote_echo","description"`) ||
		!strings.Contains(s, `"unavailable":[{"name":"remote_echo"`) {
		t.Fatalf("a switched-off tool was found, or not said to be unavailable: %s", s)
	}
	out = call("execute_tools", map[string]any{"executions": []any{map[string]any{"tool": "remote_echo", "args": map[string]any{"text": "x"}}}})
	if !strings.Contains(out, "Unknown tool: remote_echo") {
		t.Fatalf("a switched-off tool ran: %s", out)
	}
}

// A guild's login reaches the guild's agent over /mcp with that agent's own API key, and not an agent
// of the same organisation outside the guild; a switch at the guild decides for its agent.
func TestConnectorScopesOverMCP(t *testing.T) {
	t.Parallel()
	const tok = "tok-e2e-guild-0123"
	remote := connectorstest.NewRemote(t, tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	orgs := srv.M.Organizations
	if err := orgs.SignedIn(ctx, ada.ID, ada.Email, md); err != nil {
		t.Fatal(err)
	}
	acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	team, err := orgs.CreateGuild(ctx, ada.ID, acme, "Team", md)
	if err != nil {
		t.Fatal(err)
	}
	inGuild, err := orgs.CreateAgent(ctx, ada.ID, acme, "in-guild", team, md)
	if err != nil {
		t.Fatal(err)
	}
	outside, err := orgs.CreateAgent(ctx, ada.ID, acme, "outside", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	keyOf := func(agent uuid.UUID) string {
		k, pos, err := srv.M.Accounts.MintOrRotateAgent(ctx, ada.ID, agent, md)
		if err != nil {
			t.Fatal(err)
		}
		srv.waitFor(t, pos)
		return k.Secret
	}
	session := func(key string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
			HTTPClient: &http.Client{Transport: bearer{key: key, next: http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	search := func(cs *mcp.ClientSession) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "echo"}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	guildOwner := login.Owner{Scope: login.ScopeGuild, ID: team}
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: guildOwner, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	in, out := session(keyOf(inGuild)), session(keyOf(outside))
	if s := search(in); !strings.Contains(s, "remote_echo") {
		t.Fatalf("the guild's agent does not find the guild's tool: %s", s)
	}
	if s := search(out); strings.Contains(s, "remote_echo") {
		t.Fatalf("an agent outside the guild finds it: %s", s)
	}
	if err := srv.M.Connectors.SetSwitch(ctx, ada.ID, guildOwner, "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	if s := search(in); strings.Contains(s, `{"name":"remote_echo","description"`) || !strings.Contains(s, "switched Off by guild Team") {
		t.Fatalf("switched Off at the guild, still found, or not said why: %s", s)
	}
}
