package main

// Several accounts of one connector on the portal's Connectors page, in real headless Chromium: ada
// connects a token connector at her agent through the catalog's form without a label (its "default"
// account), then adds a second account labelled "work" through the same form (a malformed label is
// refused in the page, a label her agent holds already is refused by the server, whose message the
// form shows). Both logins show their labels and the first the Default badge; Make default on work
// moves the badge, and the server agrees; removing work leaves one account. Last, an adapter
// connector's login shows its label and who it is at the provider (the account hint).

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
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/todoist"
)

func TestConnectorAccountsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	const tok, tok2, todoTok = "tok-accounts-home-1234", "tok-accounts-work-5678", "todo-accounts-token-9012"
	remote := connectorstest.NewRemote(t, tok)
	remote.Accept(tok2)
	fake, _ := connectorstest.TodoistFake(t, todoTok)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"token","fields":[{"name":"token","label":"Access token","secret":true}]}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn,
		func(m *Main) { m.ConnectorAdapters = map[string]connector.Adapter{"todoist": todoist.New(fake.URL)} })
	ada := srv.user(t, "ada@example.com")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// portal calls the portal's API as ada and decodes its JSON answer into out.
	portal := func(method, path string, out any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, nil)
		req.Header.Set("Origin", srv.Base)
		cookie, err := srv.M.Sessions.Cookie(ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body bytes.Buffer
		body.ReadFrom(resp.Body) //nolint:errcheck // the decode below fails on a short body
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body.Bytes(), out) != nil {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, body.String())
		}
	}
	var home struct {
		AgentID string `json:"agent_id"`
	}
	portal(http.MethodGet, "/api/mcp/home", &home)
	// accounts is what the server lists of mcp_remote at ada's agent: label -> default.
	accounts := func() map[string]bool {
		t.Helper()
		var listed struct {
			Connections []struct {
				ServerID   string `json:"mcp_server_id"`
				OwnerScope string `json:"owner_scope"`
				Account    string `json:"account"`
				Default    bool   `json:"default"`
			} `json:"connections"`
		}
		portal(http.MethodGet, "/api/mcp/connections?agent_id="+home.AgentID, &listed)
		out := map[string]bool{}
		for _, c := range listed.Connections {
			if c.ServerID == "mcp_remote" && c.OwnerScope == "agent" {
				out[c.Account] = c.Default
			}
		}
		return out
	}

	tb := openTab(t, browser, srv.Base)
	tb.signIn(srv, ada.ID)
	tb.open("/connectors")

	const catalog = `article[data-server=mcp_remote]:not(.login)`
	const form = catalog + ` [data-testid=connect-form]`
	login := func(label string) string {
		return fmt.Sprintf(`article.login[data-server=mcp_remote][data-account=%q]`, label)
	}
	// cards waits until the page shows n logins of mcp_remote.
	cards := func(n int) {
		t.Helper()
		tb.waitJS(fmt.Sprintf("the page never came to %d Remote logins", n),
			`(s, n) => document.querySelectorAll(s).length === n`, `article.login[data-server=mcp_remote]`, n)
	}

	t.Run("the first account, without a label, is the default", func(t *testing.T) {
		tb.t = t
		tb.click(catalog+` [data-testid=connect]`, `^Connect$`)
		label := tb.el(form+` [data-testid=account-label]`, "")
		named, err := label.Eval(`function () { return this.labels.length === 1 && this.labels[0].htmlFor === this.id && /Account label/.test(this.labels[0].textContent) }`)
		if err != nil || !named.Value.Bool() {
			t.Errorf("the account label input has no <label for> naming it (%v)", err)
		}
		help, err := label.Eval(`function () { const d = document.getElementById(this.getAttribute('aria-describedby')); return d ? d.textContent : '' }`)
		if err != nil || !strings.Contains(help.Value.String(), "“default”") || !strings.Contains(help.Value.String(), "more than one") {
			t.Errorf("the account label's help says %q (%v)", help.Value.String(), err)
		}
		tb.fill(form+` [data-testid=field-token]`, tok)
		tb.click(form+` [data-testid=connect-submit]`, "")
		tb.el(`.notice-success`, `Remote is connected`)
		tb.el(login("default")+` [data-testid=account-name]`, `^default$`)
		tb.el(login("default")+` [data-testid=default-badge]`, `Default`)
		tb.el(login("default")+` [data-testid=login-status]`, `connected`)
		if has, _, _ := tb.p.Has(login("default") + ` [data-testid=make-default]`); has {
			t.Error("the only account, the default, offers Make default")
		}
		if got := accounts(); len(got) != 1 || !got["default"] {
			t.Fatalf("the server lists %v, want default (the default)", got)
		}
	})

	t.Run("a second account labelled work through the form", func(t *testing.T) {
		tb.t = t
		// The catalog offers another account now, and its help names the one the agent holds.
		tb.click(catalog+` [data-testid=add-account]`, `Add another account`)
		if has, _, _ := tb.p.Has(catalog + ` [data-testid=connect]`); has {
			t.Error("the catalog still offers Connect beside Add another account")
		}
		tb.el(form+` .field-help`, `This agent holds “default”\. A new label, for example work, adds another account`)
		// A malformed label is refused in the page.
		tb.fill(form+` [data-testid=field-token]`, tok2)
		tb.fill(form+` [data-testid=account-label]`, "Work Stuff")
		tb.click(form+` [data-testid=connect-submit]`, "")
		tb.el(form+` .notice-error`, `Check the account label`)
		if !tb.evalBool(`() => document.activeElement && document.activeElement.dataset.testid === 'account-label' && document.activeElement.getAttribute('aria-invalid') === 'true'`) {
			t.Error("the malformed label is not marked invalid and focused")
		}
		// No label is the "default" account, which the agent holds: the server's 409 is shown.
		tb.fill(form+` [data-testid=account-label]`, "")
		tb.click(form+` [data-testid=connect-submit]`, "")
		tb.el(form+` .notice-error`, `Remote was not connected\s*a connected login to mcp_remote \(account default\) exists at this agent`)
		if got := accounts(); len(got) != 1 {
			t.Fatalf("a refused connect reached the server: %v", got)
		}
		tb.fill(form+` [data-testid=account-label]`, "work")
		tb.click(form+` [data-testid=connect-submit]`, "")
		tb.el(`.notice-success`, `Remote is connected\s*The account is labelled “work”`)
		cards(2)
		tb.el(login("work")+` [data-testid=account-name]`, `^work$`)
		tb.el(login("work")+` [data-testid=login-status]`, `connected`)
		tb.el(login("default")+` [data-testid=default-badge]`, `Default`)
		if has, _, _ := tb.p.Has(login("work") + ` [data-testid=default-badge]`); has {
			t.Error("work is marked Default too")
		}
		tb.el(login("work")+` [data-testid=make-default]`, `Make default`)
		tb.el(login("work")+` [data-testid=remove]`, `Remove`)
		tb.el(login("default")+` [data-testid=remove]`, `Remove`)
		tb.shot("connector-accounts-two")
		if got := accounts(); len(got) != 2 || !got["default"] || got["work"] {
			t.Fatalf("the server lists %v, want default (the default) and work", got)
		}
	})

	t.Run("make work the default", func(t *testing.T) {
		tb.t = t
		mk := tb.el(login("work")+` [data-testid=make-default]`, `Make default`)
		if name, _ := mk.Attribute("aria-label"); name == nil || *name != "Make default: work" {
			t.Errorf("Make default's accessible name is %v, want Make default: work", name)
		}
		tb.click(login("work")+` [data-testid=make-default]`, "")
		tb.el(`.notice-success`, `“work” is now the default Remote account`)
		tb.el(login("work")+` [data-testid=default-badge]`, `Default`)
		tb.el(login("default")+` [data-testid=make-default]`, `Make default`)
		if has, _, _ := tb.p.Has(login("default") + ` [data-testid=default-badge]`); has {
			t.Error("default is still marked Default")
		}
		if has, _, _ := tb.p.Has(login("work") + ` [data-testid=make-default]`); has {
			t.Error("the new default still offers Make default")
		}
		if got := accounts(); len(got) != 2 || !got["work"] || got["default"] {
			t.Fatalf("the server lists %v, want work as the default", got)
		}
		tb.shot("connector-accounts-work-default")
	})

	t.Run("remove work after confirming", func(t *testing.T) {
		tb.t = t
		tb.click(login("work")+` [data-testid=remove]`, "")
		tb.el(`dialog[open]`, `Remove the Remote account “work”`)
		tb.click(`dialog[open] [data-testid=dialog-cancel]`, "")
		tb.el(login("work"), "")
		tb.click(login("work")+` [data-testid=remove]`, "")
		tb.click(`dialog[open] [data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `The Remote account “work” is removed`)
		cards(1)
		tb.el(login("default")+` [data-testid=account-name]`, `^default$`)
		tb.el(login("default")+` [data-testid=default-badge]`, `Default`)
		if got := accounts(); len(got) != 1 || !got["default"] {
			t.Fatalf("the server lists %v, want default alone, the default", got)
		}
	})

	t.Run("an adapter connector's login says who it is at the provider", func(t *testing.T) {
		tb.t = t
		const todo = `article[data-server=mcp_todoist]`
		tb.click(todo+`:not(.login) [data-testid=connect]`, `^Connect$`)
		tb.fill(todo+` [data-testid=field-api_token]`, todoTok)
		tb.fill(todo+` [data-testid=setting-project_id]`, "220474323")
		tb.fill(todo+` [data-testid=account-label]`, "personal")
		tb.click(todo+` [data-testid=connect-submit]`, "")
		tb.el(`.notice-success`, `Todoist is connected`)
		const card = `article.login[data-server=mcp_todoist][data-account=personal]`
		tb.el(card+` [data-testid=account-name]`, `^personal$`)
		tb.el(card+` [data-testid=default-badge]`, `Default`)
		tb.el(card+` [data-testid=account-hint]`, `Connected as ada@example\.com`)
		tb.shot("connector-accounts-hint")
	})
	tb.t = t
}
