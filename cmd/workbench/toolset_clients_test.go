package main

// Real MCP clients, pinned in testdata/clients/package-lock.json as for clients_test.go, against a
// toolset's endpoint (/mcp/ts/ops) as a plain MCP server: the official TypeScript SDK's client, the MCP
// Inspector's CLI mode and mcp-remote (the stdio bridge of desktop clients) each list the set's tools,
// call one of its connector's tools, list and read the connector's resources and list and get its
// prompt, namespaced by connector (workbench://mcp_remote/<uri>, mcp_remote/<name>). The SDK and
// mcp-remote (toolset-client.mjs, one JSON check line per check, read by runChecks) also list the
// resource templates, read a templated resource, and are refused a tool outside the set (Unknown tool).
// The SDK's client also signs in with OAuth at the toolset's endpoint (toolset-oauth-client.mjs): its
// token is asked for that endpoint alone, and /mcp refuses it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
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

func TestClientsThroughAToolset(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t) // skips (fails under CI=true) without Node and npm; sets pinnedNode
	srv, key := toolsetOps(t)
	endpoint := srv.Base + "/mcp/ts/ops"

	t.Run("typescript-sdk", func(t *testing.T) {
		seen, _ := runChecks(t, "TypeScript SDK client", clients, []string{"WORKBENCH_TOOLSET_URL=" + endpoint, "WORKBENCH_API_KEY=" + key},
			"toolset-client.mjs", "sdk")
		for _, c := range []string{"initialize", "tools/list", "tools/call remote_echo", "resources/list", "resources/read", "prompts/list", "prompts/get"} {
			if !seen["sdk: "+c] {
				t.Errorf("TypeScript SDK client: the %s check did not run", c)
			}
		}
	})
	t.Run("inspector-cli", func(t *testing.T) { runInspectorOnToolset(t, clients, endpoint, key) })
	t.Run("typescript-sdk-oauth", func(t *testing.T) {
		seen, _ := runChecks(t, "TypeScript SDK client (OAuth)", clients, []string{"WORKBENCH_TOOLSET_URL=" + endpoint,
			"WORKBENCH_SIGNIN_LINK=" + srv.Base + cliSigninLink(t, srv, "ada@example.com"), "WORKBENCH_EXPECT_TOOL=remote_echo"},
			"toolset-oauth-client.mjs")
		for _, c := range []string{"the toolset names its own resource, and the token is asked for it", "code exchange and tools/list with the token",
			"the toolset token is refused at /mcp"} {
			if !seen["oauth: "+c] {
				t.Errorf("TypeScript SDK client (OAuth): the check %q did not run", c)
			}
		}
	})
	t.Run("mcp-remote", func(t *testing.T) {
		seen, _ := runChecks(t, "mcp-remote", clients, []string{"WORKBENCH_TOOLSET_URL=" + endpoint, "WORKBENCH_API_KEY=" + key},
			"toolset-client.mjs", "mcp-remote")
		for _, c := range []string{"initialize", "tools/list", "tools/call remote_echo", "resources/read", "prompts/get"} {
			if !seen["mcp-remote: "+c] {
				t.Errorf("mcp-remote: the %s check did not run", c)
			}
		}
	})
}

// toolsetOps serves Workbench in process with the toolset ops set up as TestToolsetsEndToEnd does: on
// ada's default agent, entries remote_* and utils_echo, the connector mcp_remote (a token connector
// whose remote serves tools, a resource test://static, a template test://items/{id} and a prompt
// greet), logged in for the agent. It returns the server and ada's API key.
func toolsetOps(t *testing.T) (*e2eServer, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const tok = "tok-toolset-clients-0123"
	remote := connectorstest.NewRemote(t, tok)
	remote.MCP.AddResource(&mcp.Resource{URI: "test://static", Name: "static", MIMEType: "text/plain"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "static content"}}}, nil
	})
	remote.MCP.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://items/{id}", Name: "item"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "item " + strings.TrimPrefix(req.Params.URI, "test://items/")}}}, nil
	})
	remote.MCP.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Hello " + req.Params.Arguments["who"]}}}}, nil
	})
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	if err := srv.M.Organizations.SignedIn(ctx, ada.ID, ada.Email, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	agent := organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent},
		Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	saveToolset(t, srv, ada, map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "name": "ops", "description": "What ops needs.",
		"entries": []map[string]string{{"tool": "remote_*"}, {"tool": "utils_echo"}}, "connectors": []string{"mcp_remote"}})
	return srv, ada.Key
}

// runInspectorOnToolset runs the MCP Inspector's CLI mode (--cli, as runInspector does, in the CLI's
// build directory) against a toolset's endpoint, one process per method.
func runInspectorOnToolset(t *testing.T, clients, endpoint, key string) {
	dir := filepath.Join(clients, "node_modules", "@modelcontextprotocol", "inspector-cli", "build")
	inspect := func(args ...string) map[string]any {
		t.Helper()
		args = append([]string{"cli.js", "--cli", endpoint, "--transport", "http",
			"--header", "Authorization: Bearer " + key}, args...)
		out, err := runNode(t, dir, nil, args...) // runNode bounds each run to 2 minutes
		if err != nil {
			t.Fatalf("inspector %s: %v\n%s", redactArgs(args[1:]), err, out)
		}
		var v map[string]any
		if i := bytes.IndexByte(out, '{'); i < 0 || json.Unmarshal(out[i:], &v) != nil {
			t.Fatalf("inspector %s printed no JSON object:\n%s", redactArgs(args[1:]), out)
		}
		return v
	}
	names := func(v map[string]any, list, field string) []string {
		items, _ := v[list].([]any)
		var out []string
		for _, item := range items {
			if m, ok := item.(map[string]any); ok {
				out = append(out, fmt.Sprint(m[field]))
			}
		}
		return out
	}
	firstText := func(v map[string]any, list string) string {
		items, _ := v[list].([]any)
		if len(items) == 0 {
			return ""
		}
		m, _ := items[0].(map[string]any)
		if content, ok := m["content"].(map[string]any); ok { // a prompt message
			m = content
		}
		s, _ := m["text"].(string)
		return s
	}

	tools := names(inspect("--method", "tools/list"), "tools", "name")
	if !slices.Contains(tools, "remote_echo") || !slices.Contains(tools, "utils_echo") || slices.Contains(tools, "utils_time") {
		t.Errorf("inspector tools/list of the toolset is %v; want remote_echo and utils_echo, not utils_time", tools)
	}
	if called := inspect("--method", "tools/call", "--tool-name", "remote_echo", "--tool-arg", "text=hi"); called["isError"] == true || firstText(called, "content") != "echo: hi" {
		t.Errorf("inspector tools/call remote_echo: %v", called)
	}
	const static = "workbench://mcp_remote/test://static"
	if uris := names(inspect("--method", "resources/list"), "resources", "uri"); !slices.Contains(uris, static) {
		t.Errorf("inspector resources/list of the toolset is %v; want %s among them", uris, static)
	}
	if read := inspect("--method", "resources/read", "--uri", static); firstText(read, "contents") != "static content" {
		t.Errorf("inspector resources/read %s: %v", static, read)
	}
	if prompts := names(inspect("--method", "prompts/list"), "prompts", "name"); !slices.Contains(prompts, "mcp_remote/greet") {
		t.Errorf("inspector prompts/list of the toolset is %v; want mcp_remote/greet among them", prompts)
	}
	if got := inspect("--method", "prompts/get", "--prompt-name", "mcp_remote/greet", "--prompt-args", "who=ada"); firstText(got, "messages") != "Hello ada" {
		t.Errorf("inspector prompts/get mcp_remote/greet: %v", got)
	}
}
