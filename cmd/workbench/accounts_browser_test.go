package main

// Several accounts of one integration on the portal's integrations page, in real headless Chromium at
// a phone's width (390 px): ada stores an API key without a label (her "default" account) and a
// second one labelled "work" through the card's form, makes "work" the default from the keyboard,
// then disconnects "default". The card follows each step, the server's accounts agree, and an agent's
// calls carry the key each account was given (the fake API answers only the keys it knows). Then a
// second account of an OAuth integration is added under a label through the provider's consent. Last,
// that account's token expires and the provider refuses its refresh (invalid_grant) when an agent
// uses it, so the server records that it needs re-authorization; its row offers "Reconnect: work",
// which goes through the consent again and brings the account back.

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

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/internal/testenv"
)

// writeKeyedPlugin writes "keyed", an API-key integration whose one tool asks the API at base who
// its key belongs to (header X-Api-Key).
func writeKeyedPlugin(t *testing.T, dir, base string) {
	t.Helper()
	d := filepath.Join(dir, "keyed")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"manifest.json": fmt.Sprintf(`{"name":"keyed","version":"1.0.0","display_name":"Keyed","description":"A test API-key integration.",
			"base_url":%q,"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true}],"inject":{"in":"header","name":"X-Api-Key"}}}}`, base),
		"tools.json": `[{"name":"keyed_whoami","description":"Who the key belongs to.",
			"input_schema":{"type":"object","properties":{},"additionalProperties":false},"http":{"method":"GET","path":"/whoami","response":{"fields":["login"]}}}]`,
	} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// signIn gives the tab user's portal session cookie, as the sign-in would have set it.
func (tb *tab) signIn(srv *e2eServer, user uuid.UUID) {
	tb.t.Helper()
	c, err := srv.M.Sessions.Cookie(user)
	if err != nil {
		tb.t.Fatal(err)
	}
	if err := tb.p.SetCookies([]*proto.NetworkCookieParam{{
		Name: c.Name, Value: c.Value, URL: srv.Base, Path: "/", HTTPOnly: c.HttpOnly, Secure: c.Secure,
		SameSite: proto.NetworkCookieSameSiteLax, Expires: proto.TimeSinceEpoch(c.Expires.Unix()),
	}}); err != nil {
		tb.t.Fatalf("set the session cookie: %v", err)
	}
}

// waitJS waits until the page's js, given args, returns true; what says what was awaited.
func (tb *tab) waitJS(what, js string, args ...any) {
	tb.t.Helper()
	if err := tb.page().Wait(rod.Eval(js, args...)); err != nil {
		body, _ := tb.p.Timeout(2 * time.Second).Element("body")
		var txt string
		if body != nil {
			txt, _ = body.Text()
		}
		tb.t.Fatalf("%s: %v\npage text:\n%s", what, err, txt)
	}
}

// shotOf keeps a screenshot of the element matched by selector as name.png.
func (tb *tab) shotOf(selector, name string) {
	tb.t.Helper()
	_ = tb.p.Timeout(3 * time.Second).WaitStable(300 * time.Millisecond)
	png, err := tb.el(selector, "").Timeout(30*time.Second).Screenshot(proto.PageCaptureScreenshotFormatPng, 0)
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(tb.dir, "portal-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot: %s", path)
}

// evalBool runs js on the page and returns its boolean answer.
func (tb *tab) evalBool(js string, args ...any) bool {
	tb.t.Helper()
	res, err := tb.page().Eval(js, args...)
	if err != nil {
		tb.t.Fatalf("eval %s: %v", js, err)
	}
	return res.Value.Bool()
}

func TestAccountsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	keys := newKeyAPI(t, map[string]string{"k-personal": "ada-personal", "k-work": "ada-at-work"})
	plugDir := t.TempDir()
	writeKeyedPlugin(t, plugDir, keys.srv.URL)
	provider := newOAuthProvider(t)
	writeAcmePlugin(t, plugDir, provider)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	}, slog.LevelInfo)
	provider.register(srv.Base + "/api/auth/plugin/acme/callback")
	ada := srv.user(t, "ada@example.com")
	ctx := context.Background()

	tb := openTab(t, browser, srv.Base)
	if err := tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		t.Fatal(err)
	}
	tb.signIn(srv, ada.ID)
	tb.open("/integrations")

	const card = `article[data-integration=keyed]`
	const form = card + ` [data-testid=apikey-form]`
	item := func(label string) string { return fmt.Sprintf(`%s li[data-account=%q]`, card, label) }
	// fits says the page does not scroll sideways.
	fits := func(when string) {
		t.Helper()
		if !tb.evalBool(`() => document.documentElement.scrollWidth <= document.documentElement.clientWidth`) {
			t.Errorf("%s: the page scrolls sideways at 390 px", when)
		}
	}
	// accounts is what the server holds for ada's keyed: label -> default.
	accounts := func() map[string]bool {
		t.Helper()
		all, err := srv.M.Credentials.Accounts(ctx, ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, a := range all["keyed"] {
			out[a.Label] = a.Default
		}
		return out
	}
	// whoami runs keyed's tool as ada's agent on account ("": the default) and returns the login the
	// fake API answered for the key it received.
	agent, _ := (&mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}).connectSDK(t, ada.Key)
	defer agent.Close()
	whoami := func(account string) string {
		t.Helper()
		x := ex("keyed_whoami", nil)
		if account != "" {
			x["account"] = account
		}
		r := execute(t, agent, x).Results[0]
		var v struct {
			Login string `json:"login"`
		}
		json.Unmarshal(r["result"], &v) //nolint:errcheck // an error result has no login
		return v.Login
	}

	t.Run("the first key, without a label, is the default account", func(t *testing.T) {
		tb.t = t
		tb.el(card, `Keyed`)
		tb.click(card+` [data-testid=connect]`, `^Connect$`)
		label := tb.el(form+` [data-testid=account-label]`, "")
		named, err := label.Eval(`function () { return this.labels.length === 1 && /Account label/.test(this.labels[0].textContent) }`)
		if err != nil || !named.Value.Bool() {
			t.Errorf("the account label input has no visible <label> naming it (%v)", err)
		}
		tb.fill(form+` input[name=api_key]`, "k-personal")
		fits("the key form")
		tb.shotOf(card, "accounts-first-key")
		tb.click(form+` [data-testid=save-apikey]`, "")
		tb.el(`.notice-success`, `Keyed is connected`)
		tb.el(item("default")+` [data-testid=default-badge]`, `^Default$`)
		tb.el(item("default")+` [data-testid=account-status]`, `Connected`)
		if got := accounts(); len(got) != 1 || !got["default"] {
			t.Fatalf("the server holds %v, want default (the default)", got)
		}
	})

	t.Run("a malformed label is refused in the page", func(t *testing.T) {
		tb.t = t
		tb.click(card+` [data-testid=connect]`, `Add or replace key`)
		tb.fill(form+` input[name=api_key]`, "k-work")
		tb.fill(form+` [data-testid=account-label]`, "Work Stuff")
		tb.click(form+` [data-testid=save-apikey]`, "")
		tb.el(form+` .notice-error`, `Check the account label`)
		if !tb.evalBool(`() => document.activeElement && document.activeElement.dataset.testid === 'account-label' && document.activeElement.getAttribute('aria-invalid') === 'true'`) {
			t.Error("the malformed label is not marked invalid and focused")
		}
		if got := accounts(); len(got) != 1 {
			t.Fatalf("a malformed label reached the server: %v", got)
		}
	})

	t.Run("a second key labelled work", func(t *testing.T) {
		tb.t = t
		tb.fill(form+` [data-testid=account-label]`, "work")
		tb.click(form+` [data-testid=save-apikey]`, "")
		tb.el(item("work"), `work`)
		tb.el(item("default")+` [data-testid=default-badge]`, `^Default$`)
		if has, _, _ := tb.p.Has(item("work") + ` [data-testid=default-badge]`); has {
			t.Error("work is marked Default too")
		}
		if has, _, _ := tb.p.Has(item("default") + ` [data-testid=make-default]`); has {
			t.Error("the default account offers Make default")
		}
		if n, err := tb.page().Elements(card + ` li[data-account]`); err != nil || len(n) != 2 {
			t.Fatalf("the card lists %d accounts (%v), want 2", len(n), err)
		}
		fits("two accounts")
		tb.shotOf(card, "accounts-two")
		if got := accounts(); len(got) != 2 || !got["default"] || got["work"] {
			t.Fatalf("the server holds %v, want default (the default) and work", got)
		}
		if who := whoami("work"); who != "ada-at-work" || keys.last() != "k-work" {
			t.Errorf("on work the API answered %q for %q, want ada-at-work for k-work", who, keys.last())
		}
		if who := whoami(""); who != "ada-personal" || keys.last() != "k-personal" {
			t.Errorf("on the default the API answered %q for %q, want ada-personal for k-personal", who, keys.last())
		}
	})

	t.Run("make work the default, from the keyboard", func(t *testing.T) {
		tb.t = t
		mk := tb.el(item("work")+` [data-testid=make-default]`, `Make default`)
		if name, _ := mk.Attribute("aria-label"); name == nil || !strings.Contains(*name, "work") {
			t.Errorf("Make default's accessible name %v does not name the account", name)
		}
		if err := mk.Focus(); err != nil {
			t.Fatal(err)
		}
		if err := tb.page().Keyboard.Press(input.Enter); err != nil {
			t.Fatal(err)
		}
		tb.el(item("work")+` [data-testid=default-badge]`, `^Default$`)
		if has, _, _ := tb.p.Has(item("default") + ` [data-testid=default-badge]`); has {
			t.Error("default is still marked Default")
		}
		tb.el(item("default")+` [data-testid=make-default]`, `Make default`)
		tb.waitJS("the keyboard never came back to the card's accounts",
			`() => document.activeElement && document.activeElement.matches('article[data-integration=keyed] .accounts-title')`)
		if got := accounts(); !got["work"] || got["default"] {
			t.Fatalf("the server holds %v, want work as the default", got)
		}
		if who := whoami(""); who != "ada-at-work" || keys.last() != "k-work" {
			t.Errorf("on the new default the API answered %q for %q, want ada-at-work for k-work", who, keys.last())
		}
		tb.shotOf(card, "accounts-work-default")
	})

	t.Run("disconnect the default account after confirming", func(t *testing.T) {
		tb.t = t
		tb.click(item("default")+` [data-testid=disconnect]`, "")
		tb.el(`dialog[open]`, `Disconnect Keyed account “default”`)
		tb.click(`[data-testid=dialog-cancel]`, "")
		tb.el(item("default"), `default`)
		tb.click(item("default")+` [data-testid=disconnect]`, "")
		tb.click(`dialog[open] [data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `“default” is disconnected`)
		tb.waitJS("the card never came down to one account",
			`s => document.querySelectorAll(s).length === 1`, card+` li[data-account]`)
		tb.el(item("work")+` [data-testid=default-badge]`, `^Default$`)
		fits("one account left")
		tb.shotOf(card, "accounts-work-left")
		if got := accounts(); len(got) != 1 || !got["work"] {
			t.Fatalf("the server holds %v, want work alone, the default", got)
		}
		if who := whoami(""); who != "ada-at-work" {
			t.Errorf("without a label the API answered %q, want ada-at-work", who)
		}
	})

	t.Run("add another OAuth account by its label", func(t *testing.T) {
		tb.t = t
		const acme = `article[data-integration=acme]`
		// The provider consents at once and the callback sends the browser home.
		tb.open("/integrations")
		tb.click(acme+` [data-testid=connect]`, `^Connect$`)
		tb.el(`.notice-success`, `Acme is connected`)
		tb.el(acme+` li[data-account="default"] [data-testid=default-badge]`, `^Default$`)
		tb.open("/integrations") // no notice left from the first round trip
		tb.click(acme+` [data-testid=add-account]`, `Add another account`)
		add := acme + ` [data-testid=add-account-form]`
		tb.el(add+` label`, `Account label`)
		tb.click(add+` [data-testid=add-account-submit]`, "")
		tb.el(add+` .notice-error`, `Check the account label`)
		fits("the add-account form")
		tb.shotOf(acme, "accounts-oauth-add")
		before := provider.exchanges()
		// work's token is announced to expire at once, so its first use refreshes it (the next subtest).
		provider.Set(func(s *testenv.OAuthSettings) { s.ExpiresIn = 1 })
		tb.fill(add+` [data-testid=new-account-label]`, "work")
		tb.click(add+` [data-testid=add-account-submit]`, "")
		tb.waitURL(`^/$`)
		tb.el(`.notice-success`, `Acme is connected`)
		tb.el(acme+` li[data-account="work"] [data-testid=account-status]`, `Connected`)
		tb.el(acme+` li[data-account="default"] [data-testid=default-badge]`, `^Default$`)
		if provider.exchanges() != before+1 {
			t.Errorf("the provider saw %d more code exchanges, want 1", provider.exchanges()-before)
		}
		all, err := srv.M.Credentials.Accounts(ctx, ada.ID)
		if err != nil || len(all["acme"]) != 2 || all["acme"][1].Label != "work" || all["acme"][1].Status != "connected" {
			t.Fatalf("acme's accounts on the server: %+v %v", all["acme"], err)
		}
	})

	t.Run("reconnect an OAuth account that needs re-authorization", func(t *testing.T) {
		tb.t = t
		const acme = `article[data-integration=acme]`
		work := acme + ` li[data-account="work"]`
		// acmeAccounts is ada's acme accounts on the server: label -> the account.
		acmeAccounts := func() map[string]connections.AccountView {
			t.Helper()
			all, err := srv.M.Credentials.Accounts(ctx, ada.ID)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]connections.AccountView{}
			for _, a := range all["acme"] {
				out[a.Label] = a
			}
			return out
		}
		// profile runs acme's tool as ada's agent on the work account.
		profile := func() map[string]json.RawMessage {
			t.Helper()
			x := ex("acme_profile", nil)
			x["account"] = "work"
			return execute(t, agent, x).Results[0]
		}

		// The user revoked the grant at the provider: every refresh is invalid_grant from now on.
		provider.Set(func(s *testenv.OAuthSettings) {
			s.Token = func(r *testenv.TokenReply) {
				if r.Grant == "refresh_token" {
					r.Status, r.Body = http.StatusBadRequest, map[string]any{"error": "invalid_grant", "error_description": "the grant was revoked"}
				}
			}
		})
		refreshes, reauths := provider.refreshes(), len(srv.events(t, connection.TypeReauthorizationRequired))
		if r := profile(); !strings.Contains(string(r["error"]), "invalid_grant") {
			t.Fatalf("a call with a refused refresh answered %s %s, want an error naming invalid_grant", r["error"], r["result"])
		}
		if got := provider.refreshes() - refreshes; got != 1 {
			t.Fatalf("the provider saw %d refreshes, want 1 (work's token should have expired at once)", got)
		}
		evs := srv.settledEvents(t, connection.TypeReauthorizationRequired, reauths+1)
		srv.waitFor(t, evs[len(evs)-1].Position)
		if got := acmeAccounts(); got["work"].Status != "needs_reauth" || got["default"].Status != "connected" {
			t.Fatalf("acme's accounts on the server: %+v, want work needs_reauth and default connected", got)
		}
		// The grant the next consent issues is good again.
		provider.Set(func(s *testenv.OAuthSettings) { s.Token, s.ExpiresIn = nil, 3600 })

		tb.open("/integrations")
		tb.el(work+` [data-testid=account-status]`, `Needs reconnecting`)
		again := tb.el(work+` [data-testid=reconnect]`, `^Reconnect$`)
		if name, _ := again.Attribute("aria-label"); name == nil || *name != "Reconnect: work" {
			t.Errorf("Reconnect's accessible name is %v, want Reconnect: work", name)
		}
		if has, _, _ := tb.p.Has(acme + ` li[data-account="default"] [data-testid=reconnect]`); has {
			t.Error("the connected default account offers Reconnect")
		}
		fits("an account that needs reconnecting")
		tb.shotOf(acme, "accounts-oauth-reconnect")

		before := provider.exchanges()
		if err := again.Focus(); err != nil {
			t.Fatal(err)
		}
		if err := tb.page().Keyboard.Press(input.Enter); err != nil {
			t.Fatal(err)
		}
		tb.waitURL(`^/$`)
		tb.el(`.notice-success`, `Acme is connected`)
		tb.el(work+` [data-testid=account-status]`, `Connected`)
		if has, _, _ := tb.p.Has(work + ` [data-testid=reconnect]`); has {
			t.Error("the reconnected account still offers Reconnect")
		}
		tb.el(acme+` li[data-account="default"] [data-testid=default-badge]`, `^Default$`)
		if got := provider.exchanges() - before; got != 1 {
			t.Errorf("the provider saw %d more code exchanges, want 1", got)
		}
		if got := acmeAccounts(); len(got) != 2 || got["work"].Status != "connected" || got["work"].Default || !got["default"].Default {
			t.Fatalf("acme's accounts on the server: %+v, want work connected again and default still the default", got)
		}
		r := profile()
		var v struct {
			Login string `json:"login"`
		}
		json.Unmarshal(r["result"], &v) //nolint:errcheck // an error result has no login
		issued := provider.Issued()
		if seen := provider.seenTokens(); v.Login != "ada-at-acme" || len(seen) == 0 || seen[len(seen)-1] != issued[len(issued)-1].Access {
			t.Errorf("on the reconnected work account acme answered %s %s, want ada-at-acme on the new grant's token", r["result"], r["error"])
		}
	})
	tb.t = t
}
