package main

// Admin, Connector catalog and Organisation settings, Tools, in real headless Chromium: the instance
// admin sees the page in the navigation; a connector whose platform key is not set reads Not set up
// with a link to Platform keys; a switch, a copy override and its Clear, a tool's overrides (a bad
// schema refused), the export read back by the loader, and a server added by hand (a private address
// refused). The organisation's owner adds, refuses a platform slug for, and deletes an own server. A
// signed-in user who is not an instance admin sees no Connector catalog, no add form on its page, and
// is refused (403) when he posts one anyway. And a switched-off
// connector's tools are gone for a real MCP client.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/plugins/connector"
)

// catalogDir writes the folders of the catalog tests: remote (a token connector on the test's MCP
// server) and keyed (OAuth with the configured strategy and no provider: it needs connector:keyed).
func catalogDir(t *testing.T, remoteURL string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"remote": fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"token"},"tools":[{"name":"create_issue","description":"Open an issue."}]}`, remoteURL),
		"keyed":  `{"slug":"keyed","display_name":"Keyed","endpoint":{"url":"https://93.184.216.34/mcp"},"auth":{"kind":"oauth","oauth":{"strategy":"configured"}}}`,
	}
	for name, m := range files {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name, "connector.json"), []byte(m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestConnectorCatalogPagesInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	const tok = "tok-catalog-browser-42"
	remote := connectorstest.NewRemote(t, tok)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": catalogDir(t, remote.URL()), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelInfo)
	tb := openTab(t, browser, srv.Base)
	tb.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base))
	tb.waitURL(`^/$`)
	ctx := context.Background()

	t.Run("the admin's catalog", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Connector catalog`)
		tb.waitURL(`^/admin/catalog$`)
		tb.el(`article[data-server=mcp_keyed] [data-testid=not-set-up]`, `Not set up`)
		tb.el(`article[data-server=mcp_keyed] [data-testid=setup]`, `connector:keyed`)
		if href := tb.el(`article[data-server=mcp_keyed] [data-testid=setup-link]`, `Set up`).MustAttribute("href"); href == nil || *href != "/admin/platform-keys" {
			t.Fatalf("the Set up link goes to %v", href)
		}
		tb.el(`article[data-server=mcp_remote] [data-testid=state]`, `On`)
		tb.shot("catalog-admin")
	})

	t.Run("switch off and on", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_remote] [data-testid=switch]`, `Switch off`)
		tb.el(`.notice-success`, `Remote is off`)
		tb.el(`article[data-server=mcp_remote] [data-testid=state]`, `Off`)
		if s, err := srv.M.Connectors.AdminServer(ctx, "mcp_remote"); err != nil || s.Enabled {
			t.Fatalf("after the switch: %+v %v", s.Enabled, err)
		}
		tb.click(`article[data-server=mcp_remote] [data-testid=switch]`, `Switch on`)
		tb.el(`article[data-server=mcp_remote] [data-testid=state]`, `On`)
	})

	t.Run("copy overrides, and Clear", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_remote] [data-testid=edit-copy] summary`, "")
		tb.fill(`article[data-server=mcp_remote] [data-testid=copy-description]`, "Edited in the browser.")
		tb.click(`article[data-server=mcp_remote] [data-testid=save-description]`, "")
		tb.el(`.notice-success`, `Description of mcp_remote saved`)
		tb.click(`article[data-server=mcp_remote] [data-testid=edit-copy] summary`, "")
		tb.el(`article[data-server=mcp_remote] [data-testid=original-description]`, `A remote MCP server in the test\.`)
		tb.shot("catalog-override")
		tb.click(`article[data-server=mcp_remote] [data-testid=clear-description]`, "")
		tb.el(`.notice-success`, `Description of mcp_remote cleared`)
		if s, _ := srv.M.Connectors.AdminServer(ctx, "mcp_remote"); string(s.Overrides) != "null" || s.Description != "A remote MCP server in the test." {
			t.Fatalf("after Clear: %s %q", s.Overrides, s.Description)
		}
	})

	t.Run("a tool's overrides", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-server=mcp_remote] [data-testid=edit-tools] summary`, "")
		row := `article[data-server=mcp_remote] tr[data-tool=create_issue] `
		tb.fill(row+`[data-testid=tool-schema]`, `{"type":12}`)
		tb.click(row+`[data-testid=tool-save]`, "")
		tb.el(`.notice-error`, `input_schema`)
		tb.fill(row+`[data-testid=tool-schema]`, `{"type":"object","properties":{"title":{"type":"string"}}}`)
		tb.fill(row+`[data-testid=tool-description]`, "Open one issue, as the admin says.")
		tb.choose(row+`[data-testid=tool-default]`, `^Off$`)
		tb.click(row+`[data-testid=tool-save]`, "")
		tb.el(`.notice-success`, `create_issue saved`)
		s, err := srv.M.Connectors.AdminServer(ctx, "mcp_remote")
		if err != nil || !strings.Contains(string(s.Overrides), `"default":false`) || !strings.Contains(string(s.Overrides), `as the admin says`) || !strings.Contains(string(s.Overrides), `"title"`) {
			t.Fatalf("tool overrides: %s %v", s.Overrides, err)
		}
	})

	t.Run("the export is a connector.json the loader reads", func(t *testing.T) {
		tb.t = t
		href := tb.el(`article[data-server=mcp_remote] [data-testid=export]`, "").MustAttribute("href")
		raw, err := tb.p.Timeout(10*time.Second).Eval(`(u) => fetch(u).then(r => r.text())`, *href)
		if err != nil {
			t.Fatal(err)
		}
		cs, problems := connector.Load(fstest.MapFS{"remote/connector.json": {Data: []byte(raw.Value.Str())}}, "registry", nil)
		if len(problems) > 0 || len(cs) != 1 || cs[0].Manifest.Tools[0].Description != "Open one issue, as the admin says." {
			t.Fatalf("export: %v %s", problems, raw.Value.Str())
		}
	})

	t.Run("add a server by hand", func(t *testing.T) {
		tb.t = t
		tb.fill(`[data-testid=add-slug]`, "notes")
		tb.fill(`[data-testid=add-url]`, "https://10.0.0.1/mcp")
		tb.click(`[data-testid=add-submit]`, "")
		tb.el(`.notice-error`, `The server was not added`)
		tb.fill(`[data-testid=add-url]`, remote.URL())
		tb.fill(`[data-testid=add-name]`, "Notes")
		tb.choose(`[data-testid=add-auth]`, `^Token$`)
		tb.click(`[data-testid=add-submit]`, "")
		tb.el(`.notice-success`, `Notes was added`)
		tb.el(`article[data-server=mcp_notes] [data-testid=source]`, `local`)
		tb.shot("catalog-added")
	})

	t.Run("an organisation's own servers under Tools", func(t *testing.T) {
		tb.t = t
		user := tb.userOf(t)
		tb.open("/orgs/" + organization.PersonalOrganizationID(user).String())
		tb.el(`[data-testid=org-tools] [data-testid=no-servers]`, `No servers`)
		tb.fill(`[data-testid=new-server-slug]`, "remote")
		tb.fill(`[data-testid=new-server-url]`, remote.URL())
		tb.click(`[data-testid=new-server-submit]`, "")
		tb.el(`[data-testid=tools-status] .notice-error`, `platform connector`)
		tb.fill(`[data-testid=new-server-slug]`, "wiki")
		tb.fill(`[data-testid=new-server-url]`, remote.URL())
		tb.choose(`[data-testid=new-server-auth]`, `^Token$`)
		tb.click(`[data-testid=new-server-submit]`, "")
		tb.el(`[data-testid=tools-status] .notice-success`, `wiki was added`)
		tb.el(`[data-testid=org-servers] article[data-slug=wiki] .tag`, `This organisation’s`)
		tb.shot("org-tools")
		// Its card on the Connectors page reads This organisation's.
		tb.click(`nav a`, `Connectors`)
		tb.el(`article.integration[data-server^=mcp_wiki_] [data-testid=own]`, `This organisation’s`)
		tb.el(`article.integration[data-server=mcp_keyed] [data-testid=not-set-up]`, `Not set up`)
		tb.open("/orgs/" + organization.PersonalOrganizationID(user).String())
		// Its members see it on the Connectors page as the organisation's own.
		es, err := srv.M.Connectors.Catalog(ctx, user, organization.PersonalOrganizationID(user))
		if err != nil {
			t.Fatal(err)
		}
		own := 0
		for _, e := range es {
			if e.Own && e.Slug == "wiki" {
				own++
			}
		}
		if own != 1 {
			t.Fatalf("the catalog: %+v", es)
		}
		tb.click(`[data-testid=org-servers] article[data-slug=wiki] [data-testid=server-delete]`, "")
		tb.click(`[data-testid=dialog-confirm]`, "")
		tb.el(`[data-testid=tools-status] .notice-success`, `wiki was deleted`)
		tb.el(`[data-testid=org-tools] [data-testid=no-servers]`, `No servers`)
	})
}

// A signed-in user who is not an instance admin sees no Connector catalog, and its page says so.
func TestConnectorCatalogHiddenFromNonAdminsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": catalogDir(t, "https://93.184.216.34/mcp"), "WORKBENCH_ADMINS": "someone-else@example.com"}, slog.LevelInfo)
	tb := openTab(t, browser, srv.Base)
	tb.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base))
	tb.waitURL(`^/$`)
	tb.el(`nav a`, `Organisations`)
	if has, _, err := tb.page().HasR(`nav a`, `Connector catalog`); err != nil || has {
		t.Fatalf("a non-admin's navigation shows the catalog (%v)", err)
	}
	tb.open("/admin/catalog")
	tb.el(`[data-testid=admin-catalog]`, `Instance admins only`)
	// Issue 30, item 5: the "Add a remote MCP server" form is not drawn for a user who may not use it,
	// and the server refuses the same POST from the portal's own page (same origin, CSRF header) with 403.
	if has, _, err := tb.page().Has(`[data-testid=add-server]`); err != nil || has {
		t.Fatalf("a non-admin's catalog page draws the add form (%v)", err)
	}
	if has, _, err := tb.page().HasR(`h2`, `Add a remote MCP server`); err != nil || has {
		t.Fatalf("a non-admin's catalog page names the add form (%v)", err)
	}
	res, err := tb.page().Eval(`async () => {
		const r = await fetch('/api/admin/mcp/servers', {method: 'POST', credentials: 'same-origin',
			headers: {'Content-Type': 'application/json', 'X-Workbench-CSRF': '1'},
			body: JSON.stringify({slug: 'mine', url: 'https://93.184.216.34/mcp', auth: 'none'})});
		return r.status + ' ' + await r.text();
	}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Value.String(); !strings.HasPrefix(got, "403 ") {
		t.Fatalf("a non-admin adding a server from the portal: %s, want 403", got)
	}
}

// A switched-off connector's tools leave search_tools and execute_tools for a real MCP client over
// the served /mcp; its login stays; switched on again, they come back.
func TestDisabledConnectorOverMCP(t *testing.T) {
	t.Parallel()
	const tok = "tok-disabled-mcp-5151"
	remote := connectorstest.NewRemote(t, tok)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": catalogDir(t, remote.URL()), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(t, "ada@example.com")
	ctx := context.Background()
	agent := login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(user.ID)}
	res, err := srv.M.Connectors.Connect(ctx, user.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: agent, Fields: map[string]string{"token": tok}})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: user.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args any) string {
		t.Helper()
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r.Content[0].(*mcp.TextContent).Text
	}
	echo := map[string]any{"executions": []any{map[string]any{"tool": "remote_echo", "args": map[string]any{"text": "hi"}}}}
	if s := call("search_tools", map[string]any{"query": "echo"}); !strings.Contains(s, "remote_echo") {
		t.Fatalf("search_tools before = %s", s)
	}
	off, on := false, true
	if _, err := srv.M.Connectors.EditServer(ctx, "admin", "mcp_remote", connectors.ServerEdit{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if s := call("search_tools", map[string]any{"query": "echo"}); strings.Contains(s, "remote_echo") {
		t.Fatalf("a disabled connector's tool was found: %s", s)
	}
	if s := call("execute_tools", echo); !strings.Contains(s, "Unknown tool: remote_echo") {
		t.Fatalf("a disabled connector's tool ran: %s", s)
	}
	if v, err := srv.M.Connectors.VisibleLogins(ctx, user.ID, [16]byte{}, agent.ID); err != nil || len(v) != 1 || v[0].ID != res.Login.ID {
		t.Fatalf("its login while off: %v %v", v, err)
	}
	if _, err := srv.M.Connectors.EditServer(ctx, "admin", "mcp_remote", connectors.ServerEdit{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	if s := call("execute_tools", echo); !strings.Contains(s, "echo: hi") {
		t.Fatalf("switched on again: %s", s)
	}
}
