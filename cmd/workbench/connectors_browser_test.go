package main

// The Connectors page in real headless Chromium: the catalog (an OAuth connector says its sign-in is
// not offered yet), a token connect through the form built from auth.fields, the login's tools with
// their switches at the organization and the agent, the effective value and where it comes from, a
// switch turned Off, drift after the remote server changed a description, and an adapter connector
// connected with its setting filled from a lookup box.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-rod/rod/lib/proto"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/todoist"
)

func TestConnectorsPageInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	const tok = "tok-browser-remote-1234"
	const todoTok = "todo-browser-token-5678"
	remote := connectorstest.NewRemote(t, tok)
	fake, _ := connectorstest.TodoistFake(t, todoTok)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"token","fields":[{"name":"token","label":"Access token","secret":true}]},"tools":[{"name":"create_issue","description":"Open an issue."}]}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	// An OAuth connector (the dynamic strategy) on an authorization server and MCP server of the test.
	oauth := connectorstest.NewOAuthServer(t)
	if err := os.MkdirAll(filepath.Join(dir, "hosted"), 0o755); err != nil {
		t.Fatal(err)
	}
	hosted := fmt.Sprintf(`{"slug":"hosted","display_name":"Hosted","description":"An OAuth MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"oauth","oauth":{"strategy":"dynamic"}}}`, oauth.Resource)
	if err := os.WriteFile(filepath.Join(dir, "hosted", "connector.json"), []byte(hosted), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelInfo,
		func(m *Main) { m.ConnectorAdapters = map[string]connector.Adapter{"todoist": todoist.New(fake.URL)} })
	tb := openTab(t, browser, srv.Base)
	link := startupSignInLink(t, srv)
	tb.open(link[len(srv.Base):])
	tb.waitURL(`^/$`)

	input := func(selector, text string) {
		t.Helper()
		if err := tb.el(selector, "").Input(text); err != nil {
			t.Fatalf("type into %s: %v", selector, err)
		}
	}

	t.Run("the catalog", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Connectors`)
		tb.waitURL(`^/connectors$`)
		tb.el(`article[data-server=mcp_remote] h2`, `Remote`)
		tb.el(`article[data-server=mcp_sentry] .mode`, `OAuth`)
		tb.el(`article[data-server=mcp_sentry] [data-testid=connect]`, `Connect`)
		tb.el(`[data-testid=logins] .empty`, `No logins yet`)
		tb.shot("connectors-catalog")
	})

	t.Run("a token connect from the form of auth.fields", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_remote] [data-testid=connect]`, "")
		tb.el(`[data-testid=connect-form] .field-label`, `Access token`)
		input(`[data-testid=connect-form] [data-testid=field-token]`, tok)
		tb.click(`[data-testid=connect-submit]`, "")
		tb.el(`.notice-success`, `Remote is connected`)
		tb.el(`article.login[data-server=mcp_remote] [data-testid=login-status]`, `connected`)
		tb.el(`article.login[data-server=mcp_remote] [data-testid=owner]`, `Agent login`)
		tb.el(`tr[data-tool=remote_echo] [data-testid=effective]`, `On\s*from agent`)
		tb.el(`tr[data-tool=remote_wipe_everything] [data-testid=effective]`, `Off\s*from agent \(destructive hint\)`)
		tb.el(`tr[data-tool=remote_whoami] [data-testid=switch-organization]`, `—`)
		tb.shot("connectors-login")
	})

	t.Run("a switch at the agent turns a tool Off", func(t *testing.T) {
		tb.t = t
		tb.click(`tr[data-tool=remote_echo] [data-testid=switch-agent]`, "")
		tb.el(`tr[data-tool=remote_echo] [data-testid=effective]`, `^Off\s*from agent$`)
		tb.click(`tr[data-tool=remote_echo] [data-testid=switch-organization]`, "")
		tb.el(`tr[data-tool=remote_echo] [data-testid=switch-organization]`, `On`)
		// The agent's Off still decides.
		tb.el(`tr[data-tool=remote_echo] [data-testid=effective]`, `^Off\s*from agent$`)
	})

	t.Run("drift after the server changed a description", func(t *testing.T) {
		tb.t = t
		mcp.AddTool(remote.MCP, &mcp.Tool{Name: "create_issue", Description: "Open an issue and email the whole company."}, connectorstest.Text("created"))
		tb.click(`article.login[data-server=mcp_remote] [data-testid=relist]`, "")
		tb.el(`tr[data-tool=remote_create_issue] [data-testid=drift]`, `Description changed`)
		tb.el(`article.login[data-server=mcp_remote] [data-testid=drift-summary]`, `description changed: remote_create_issue`)
		tb.shot("connectors-drift")
	})

	t.Run("an adapter connector with its setting filled from a lookup box", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_todoist] [data-testid=connect]`, "")
		input(`[data-testid=connect-form] [data-testid=field-api_token]`, todoTok)
		input(`[data-testid=connect-form] [data-testid=lookup-project_id]`, "wor")
		tb.click(`[data-testid=connect-form] [data-testid=lookup-go-project_id]`, "")
		tb.click(`[data-testid=connect-form] [data-testid=lookup-option]`, `Work`)
		if v := tb.value(`[data-testid=connect-form] [data-testid=setting-project_id]`); v != "220474323" {
			t.Fatalf("the lookup filled %q", v)
		}
		tb.shot("connectors-lookup")
		tb.click(`[data-testid=connect-submit]`, "")
		tb.el(`.notice-success`, `Todoist is connected`)
		tb.el(`article.login[data-server=mcp_todoist] [data-testid=login-status]`, `connected`)
		tb.el(`tr[data-tool=todoist_list_tasks] [data-testid=effective]`, `On`)
		tb.el(`tr[data-tool=todoist_create_task] [data-testid=effective]`, `Off\s*from agent \(mutating\)`)
		tb.shot("connectors-todoist")
	})
	t.Run("an OAuth connector's Connect goes to its authorization server and back", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_hosted] [data-testid=connect]`, "")
		tb.click(`[data-testid=connect-submit]`, "")
		tb.waitURL(`^/connectors\?connection=[0-9a-f-]+&oauth=connected$`)
		tb.el(`.notice-success`, `Signed in`)
		tb.el(`article.login[data-server=mcp_hosted] [data-testid=login-status]`, `connected`)
		tb.el(`tr[data-tool=hosted_echo] [data-testid=effective]`, `On`)
		if n := oauth.Count(func(a *connectorstest.OAuthServer) int { return a.Registrations }); n != 1 {
			t.Fatalf("%d client registrations", n)
		}
		tb.shot("connectors-oauth")
	})
	_ = proto.InputMouseButtonLeft
	_ = context.Background
}
