package metatools

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

// Over MCP with the official SDK client: a tool an organisation switched Off stays Off although the
// agent's own scope turned it On before (and its own login would call it); search_tools lists it as
// unavailable with why, get_tool_schema answers why with isError, execute_tools does not run it.
func TestSwitchedOffToolSaysWhy(t *testing.T) {
	const tok = "tok-why-off-123456"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	env.Scopes.Names = map[uuid.UUID]string{connectorstest.Org: "Acme"}
	ctx := context.Background()
	agentOwner := login.Owner{Scope: login.ScopeAgent, ID: connectorstest.Agent}
	if _, err := env.Service.Connect(ctx, connectorstest.User, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: agentOwner, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	if err := env.Service.SetSwitch(ctx, connectorstest.User, agentOwner, "mcp_remote", "remote_echo", true); err != nil {
		t.Fatal(err)
	}
	if err := env.Service.SetSwitch(ctx, connectorstest.User, login.Owner{Scope: login.ScopeOrganization, ID: connectorstest.Org}, "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	reg, problems := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins()})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	set, err := New(Options{Registry: reg, Credentials: &fakeCredentials{connected: map[string]bool{}, access: notConnected}, Executions: env.Executions, Connectors: env.Service})
	if err != nil {
		t.Fatal(err)
	}
	principal := mcp.Principal{UserID: connectorstest.User.String(), Email: "ada@example.com", Method: "api_key", ClientID: "k1", AgentID: connectorstest.Agent}
	srv, err := mcp.New(mcp.Options{
		Auth:  mcp.AuthenticatorFunc(func(*http.Request) (mcp.Principal, error) { return principal, nil }),
		Tools: set, SessionKey: bytes.Repeat([]byte("w"), 32),
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "why", Version: "1"}, nil).Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*sdk.TextContent).Text, res.IsError
	}
	const why = "switched Off by organisation Acme"
	if s, _ := call("search_tools", map[string]any{"query": "echo", "integration": "mcp_remote"}); !strings.Contains(s, `"tools":[]`) ||
		!strings.Contains(s, `"unavailable":[{"name":"remote_echo","integration":"mcp_remote","unavailable":"`+why+`"}]`) {
		t.Fatalf("search_tools = %s", s)
	}
	if s, isErr := call("get_tool_schema", map[string]any{"tool": "remote_echo"}); !isErr || !strings.Contains(s, "remote_echo is unavailable: "+why) {
		t.Fatalf("get_tool_schema = %s (isError %v)", s, isErr)
	}
	if s, _ := call("execute_tools", map[string]any{"executions": []any{map[string]any{"tool": "remote_echo", "args": map[string]any{"text": "x"}}}}); !strings.Contains(s, "Unknown tool: remote_echo") {
		t.Fatalf("execute_tools = %s", s)
	}
	if n := remote.Calls.Load(); n != 0 {
		t.Fatalf("the remote saw %d tool calls", n)
	}
}
