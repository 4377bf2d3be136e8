package main

// Connection health, budgets and webhooks in the portal, in real headless Chromium at a phone's width
// (390×844, no sideways scroll anywhere):
//
//   - TestHealthBannerInChromium: ada's Acme (OAuth) account is well, and no banner shows; its provider
//     then refuses a refresh (invalid_grant) when her agent uses it, and every page shows a banner
//     naming the account with a Reconnect link, which opens the integrations page with that account's
//     Reconnect button focused; pressing it goes through the consent again and the banner goes.
//   - TestHealthBudgetsAndWebhooksInChromium: on her organisation's page ada adds a webhook (an
//     httptest endpoint on loopback) and sees its secret once, adds a budget of 2 calls a minute and
//     100 a day and watches its use follow her agent's calls; the third call is refused RATE_LIMITED,
//     the endpoint receives budget.exhausted and the page's delivery log shows it delivered. She
//     removes both after confirming. Bob, a plain member, sees neither card.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

// phone sets the tab to a phone's viewport.
func (tb *tab) phone() {
	tb.t.Helper()
	if err := tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
		tb.t.Fatal(err)
	}
}

// fits fails the test when the page scrolls sideways.
func (tb *tab) fits(when string) {
	tb.t.Helper()
	if !tb.evalBool(`() => document.documentElement.scrollWidth <= document.documentElement.clientWidth`) {
		// The widest elements that stick out, to say what to fix.
		w, _ := tb.p.Eval(`() => { const cw = document.documentElement.clientWidth; return [...document.querySelectorAll('body *')]
			.filter((e) => e.getBoundingClientRect().right > cw + 1 && ![...e.children].some((c) => c.getBoundingClientRect().right > cw + 1))
			.filter((e) => { for (let p = e.parentElement; p; p = p.parentElement) { if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(p).overflowX)) return false; } return true; })
			.map((e) => (e.closest('svg') ? e.closest('svg').parentElement : e)).filter((e, i, all) => all.indexOf(e) === i)
			.slice(0, 5).map((e) => e.tagName.toLowerCase() + (e.className && typeof e.className === 'string' ? '.' + e.className.replace(/ /g, '.') : '') + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ') }`)
		var what any
		if w != nil {
			what = w.Value
		}
		tb.t.Errorf("%s: the page scrolls sideways at 390 px: %v", when, what)
	}
}

// healthChecked waits until the banner has looked at the server more often than before.
func (tb *tab) healthChecked(before int) {
	tb.t.Helper()
	tb.waitJS("the health banner never looked at the server",
		`(n) => Number(document.querySelector('[data-testid=health-slot]')?.dataset.checks || 0) > n`, before)
}

// signedIn records that user signed in, so that their personal organisation exists.
func signedIn(t *testing.T, srv *e2eServer, u e2eUser) {
	t.Helper()
	if err := srv.M.Organizations.SignedIn(context.Background(), u.ID, u.Email, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
}

func TestHealthBannerInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	provider := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, provider)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	}, slog.LevelWarn)
	provider.register(srv.Base + "/api/auth/plugin/acme/callback")
	ada := srv.user(t, "ada@example.com")
	signedIn(t, srv, ada)
	org := organization.PersonalOrganizationID(ada.ID)
	agent, _ := (&mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}).connectSDK(t, ada.Key)
	defer agent.Close()

	tb := openTab(t, browser, srv.Base)
	tb.phone()
	tb.signIn(srv, ada.ID)
	const acme = `article[data-integration=acme]`
	const banner = `aside[data-testid=health-banner]`

	t.Run("no banner while every account is well", func(t *testing.T) {
		tb.t = t
		// The token is announced to expire at once, so the agent's first call refreshes it.
		provider.Set(func(s *testenv.OAuthSettings) { s.ExpiresIn = 1 })
		tb.open("/integrations")
		tb.click(acme+` [data-testid=connect]`, `^Connect$`)
		tb.waitURL(`^/$`)
		tb.el(`.notice-success`, `Acme is connected`)
		tb.el(acme+` li[data-account="default"] [data-testid=account-status]`, `Connected`)
		tb.healthChecked(0)
		if has, _, _ := tb.p.Has(banner); has {
			t.Fatal("a banner shows while every account is connected")
		}
	})

	t.Run("a refused refresh shows the banner on every page", func(t *testing.T) {
		tb.t = t
		provider.Set(func(s *testenv.OAuthSettings) {
			s.Token = func(r *testenv.TokenReply) {
				if r.Grant == "refresh_token" {
					r.Status, r.Body = http.StatusBadRequest, map[string]any{"error": "invalid_grant"}
				}
			}
		})
		if r := execute(t, agent, ex("acme_profile", nil)).Results[0]; !strings.Contains(string(r["error"]), "invalid_grant") {
			t.Fatalf("a call with a refused refresh answered %s %s, want an error naming invalid_grant", r["error"], r["result"])
		}
		evs := srv.settledEvents(t, connection.TypeReauthorizationRequired, 1)
		srv.waitFor(t, evs[len(evs)-1].Position)

		for _, page := range []string{"/orgs/" + org.String(), "/approvals", "/key"} {
			tb.open(page)
			tb.el(banner+` [data-testid=health-text]`, `^Acme \(account default\) needs you to sign in again$`)
			tb.el(`main h1`, ``)
			tb.fits("the banner on " + page)
		}
		// An aside named by its heading, inside a polite live region; the link names the account.
		if !tb.evalBool(`(s) => { const a = document.querySelector(s), h = document.getElementById(a.getAttribute('aria-labelledby'));
			return a.parentElement.getAttribute('role') === 'status' && !!h && /A connection needs you/.test(h.textContent) }`, banner) {
			t.Error("the banner is not an aside named by its heading inside a role=status region")
		}
		link := tb.el(banner+` a[data-testid=health-reconnect]`, `^Reconnect$`)
		if name, _ := link.Attribute("aria-label"); name == nil || *name != "Reconnect Acme (account default)" {
			t.Errorf("Reconnect's accessible name is %v, want Reconnect Acme (account default)", name)
		}
		// The banner sits above the page, on screen without scrolling.
		if !tb.evalBool(`(s) => { const r = document.querySelector(s).getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.right <= innerWidth }`, banner) {
			t.Error("the banner is not on screen at the top of the page")
		}
		tb.shot("health-banner-phone")
	})

	t.Run("Reconnect goes to the account's Reconnect and brings it back", func(t *testing.T) {
		tb.t = t
		tb.click(banner+` a[data-testid=health-reconnect]`, ``)
		tb.waitURL(`^/integrations$`)
		tb.waitJS("the account's Reconnect button was never focused",
			`(s) => document.activeElement && document.activeElement.matches(s)`, acme+` li[data-account="default"] [data-testid=reconnect]`)
		tb.fits("the integrations page with the banner")
		tb.shotOf(acme, "health-reconnect-target")
		// The next consent issues a good grant.
		provider.Set(func(s *testenv.OAuthSettings) { s.Token, s.ExpiresIn = nil, 3600 })
		before := provider.exchanges()
		if err := tb.page().Keyboard.Press(input.Enter); err != nil {
			t.Fatal(err)
		}
		tb.waitURL(`^/$`)
		tb.el(`.notice-success`, `Acme is connected`)
		tb.el(acme+` li[data-account="default"] [data-testid=account-status]`, `Connected`)
		if got := provider.exchanges() - before; got != 1 {
			t.Errorf("the provider saw %d more code exchanges, want 1", got)
		}
		tb.healthChecked(0)
		if has, _, _ := tb.p.Has(banner); has {
			t.Error("the banner still shows after the account was reconnected")
		}
	})
	tb.t = t
}

func TestHealthBudgetsAndWebhooksInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const tok = "tok-health-browser-0123"
	remote := connectorstest.NewRemote(t, tok)
	// The budgets' clock stands still, so that the per-minute bucket does not refill while the test runs.
	start := time.Now().UTC()
	var clock atomic.Pointer[time.Time]
	clock.Store(&start)
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
	}, slog.LevelWarn, func(m *Main) { m.BudgetClock = func() time.Time { return *clock.Load() } })
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	signedIn(t, srv, ada)
	signedIn(t, srv, bob)
	org := organization.PersonalOrganizationID(ada.ID)
	agentID := organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agentID},
		Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	// bob is a plain member of ada's organisation.
	if _, err := srv.M.Organizations.Invite(ctx, ada.ID, org, bob.Email, organization.RoleMember, eventstore.Metadata{Actor: ada.ID.String()}); err != nil {
		t.Fatal(err)
	}
	acceptAs(t, srv, bob.ID, bob.Email, org)
	agent, _ := (&mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}).connectSDK(t, ada.Key)
	defer agent.Close()
	echo := func(text string) map[string]json.RawMessage {
		t.Helper()
		return execute(t, agent, ex("remote_echo", map[string]any{"text": text})).Results[0]
	}
	sink := newHookSink(t)

	tb := openTab(t, browser, srv.Base)
	tb.phone()
	tb.signIn(srv, ada.ID)
	tb.open("/orgs/" + org.String())
	const budgets = `section[data-testid=budgets]`
	const hooks = `section[data-testid=webhooks]`
	const everyTool = budgets + ` tr[data-budget-tool="*"]`
	// labelled says the input matched by selector has one visible <label> whose text matches re.
	labelled := func(selector, re string) {
		t.Helper()
		ok, err := tb.el(selector, "").Eval(`function (re) { return this.labels.length === 1 && new RegExp(re).test(this.labels[0].textContent) }`, re)
		if err != nil || !ok.Value.Bool() {
			t.Errorf("%s has no <label> reading /%s/ (%v)", selector, re, err)
		}
	}
	var secret string

	t.Run("an admin adds a webhook and sees its secret once", func(t *testing.T) {
		tb.t = t
		tb.el(hooks+` h2`, `^Webhooks$`)
		tb.el(hooks+` [data-testid=no-webhooks]`, `No webhooks yet`)
		labelled(hooks+` [data-testid=webhook-url]`, `Endpoint URL`)
		labelled(hooks+` input[value="budget.exhausted"]`, `budget\.exhausted`)
		// A URL the server refuses: its message shows, and nothing is added.
		tb.fill(hooks+` [data-testid=webhook-url]`, "https://user:pw@127.0.0.1/")
		tb.click(hooks+` label`, `budget\.exhausted`)
		tb.click(hooks+` [data-testid=webhook-add]`, ``)
		tb.el(hooks+` [data-testid=webhook-form] .notice-error`, `The webhook was not added`)
		tb.fill(hooks+` [data-testid=webhook-url]`, sink.srv.URL)
		tb.click(hooks+` [data-testid=webhook-add]`, ``)
		box := hooks + ` [data-testid=webhook-secret]`
		tb.el(box, `You will not see it again`)
		tb.el(box+` [data-testid=copy]`, `Copy`)
		secret = tb.value(box + ` input[data-testid=secret]`)
		if !strings.HasPrefix(secret, "whsec_") {
			t.Fatalf("the secret shown is %q", secret)
		}
		item := hooks + ` li.webhook`
		tb.el(item+` [data-testid=webhook-url-text]`, `^`+sink.srv.URL+`$`)
		tb.el(item+` [data-testid=webhook-events]`, `budget\.exhausted`)
		if txt := tb.text(item + ` [data-testid=webhook-events]`); strings.Contains(txt, "approval.requested") {
			t.Errorf("the webhook lists events it was not given: %q", txt)
		}
		tb.el(item+` [data-testid=no-deliveries]`, `Nothing sent yet`)
		tb.fits("the webhook's secret")
		tb.shotOf(hooks, "health-webhook-secret")
		tb.click(box+` [data-testid=webhook-secret-done]`, `I have copied it`)
		if has, _, _ := tb.p.Has(box); has {
			t.Error("the secret still shows after I have copied it")
		}
		// Once: the page opened again never shows it.
		tb.open("/orgs/" + org.String())
		tb.el(item+` [data-testid=webhook-url-text]`, ``)
		if tb.evalBool(`(s) => document.documentElement.outerHTML.includes(s)`, secret) {
			t.Error("the page shows the webhook's secret again")
		}
	})

	t.Run("an admin adds a budget and sees its usage follow the agent's calls", func(t *testing.T) {
		tb.t = t
		tb.el(budgets+` h2`, `^Budgets$`)
		tb.el(budgets+` [data-testid=no-budgets]`, `No budgets`)
		labelled(budgets+` [data-testid=budget-tool]`, `^Tool$`)
		labelled(budgets+` [data-testid=budget-per-minute]`, `Calls per minute`)
		labelled(budgets+` [data-testid=budget-per-day]`, `Calls per day`)
		tb.fill(budgets+` [data-testid=budget-per-minute]`, "2")
		tb.fill(budgets+` [data-testid=budget-per-day]`, "100")
		tb.click(budgets+` [data-testid=budget-save]`, ``)
		tb.el(budgets+` .notice-success`, `Every tool: 2 a minute, 100 a day`)
		tb.el(everyTool+` [data-testid=budget-today]`, `^0 of 100 today$`)
		tb.el(everyTool+` [data-testid=budget-minute]`, `^2 of 2 available this minute$`)
		tb.fits("a budget")

		for i := range 2 {
			if r := echo(fmt.Sprint(i)); !strings.Contains(string(r["result"]), "echo: ") {
				t.Fatalf("call %d of 2 a minute: %s %s", i+1, r["error"], r["result"])
			}
		}
		tb.click(budgets+` [data-testid=budgets-refresh]`, `Refresh usage`)
		tb.el(everyTool+` [data-testid=budget-today]`, `^2 of 100 today$`)
		tb.el(everyTool+` [data-testid=budget-minute]`, `^0 of 2 available this minute$`)
		tb.shotOf(budgets, "health-budget-used")
		if r := echo("3"); !strings.Contains(string(r["error"]), "RATE_LIMITED") {
			t.Fatalf("the third call of 2 a minute: %s %s", r["error"], r["result"])
		}
		if n := remote.Calls.Load(); n != 2 {
			t.Errorf("the remote saw %d calls, want 2", n)
		}
	})

	t.Run("the refusal is delivered and the log says so", func(t *testing.T) {
		tb.t = t
		sink.await(t, "budget.exhausted")
		delivered := hooks + ` li.delivery[data-delivery-type="budget.exhausted"][data-delivery-status=delivered]`
		deadline := time.Now().Add(30 * time.Second)
		for {
			if has, _, _ := tb.p.Has(delivered); has {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the delivery log never showed budget.exhausted delivered:\n%s", tb.text(hooks))
			}
			tb.evalBool(`() => { document.querySelector('[data-testid=webhooks-refresh]').click(); return true }`)
			time.Sleep(time.Second)
		}
		tb.el(delivered+` [data-testid=delivery-status]`, `^Delivered$`)
		tb.el(delivered+` [data-testid=delivery-attempts]`, `^1 attempt$`)
		tb.el(delivered, `delivered just now`)
		tb.fits("the delivery log")
		tb.shotOf(hooks, "health-webhook-delivered")
	})

	t.Run("the owner's agent has a budgets card of its own", func(t *testing.T) {
		tb.t = t
		tb.click(`tr[data-agent="`+agentID.String()+`"] [data-testid=agent-plugin-tools]`, `Plugin tools`)
		tb.el(`[data-testid=agent-plugin-switches] `+budgets+` [data-testid=no-budgets]`, `No budgets: the agents of agent`)
		tb.fits("the agent's budgets")
	})

	t.Run("remove the webhook and the budget after confirming", func(t *testing.T) {
		tb.t = t
		tb.click(hooks+` [data-testid=webhook-remove]`, ``)
		tb.el(`dialog[open]`, `Remove this webhook`)
		tb.click(`dialog[open] [data-testid=dialog-cancel]`, ``)
		tb.el(hooks+` li.webhook`, ``)
		tb.click(hooks+` [data-testid=webhook-remove]`, ``)
		tb.click(`dialog[open] [data-testid=dialog-confirm]`, ``)
		tb.el(hooks+` .notice-success`, `The webhook was removed`)
		tb.el(hooks+` [data-testid=no-webhooks]`, `No webhooks yet`)

		tb.click(`section[data-testid=budgets] tr[data-budget-tool="*"] [data-testid=budget-remove]`, ``)
		tb.el(`dialog[open]`, `Remove the budget on every tool`)
		tb.click(`dialog[open] [data-testid=dialog-confirm]`, ``)
		tb.el(`section[data-testid=budgets] .notice-success`, `Removed the budget on every tool`)
		if r := echo("after"); !strings.Contains(string(r["result"]), "echo: after") {
			t.Errorf("a call after the budget was removed: %s %s", r["error"], r["result"])
		}
	})

	t.Run("a plain member sees neither card", func(t *testing.T) {
		tb.t = t
		bt := openTab(t, browser, srv.Base)
		bt.phone()
		bt.signIn(srv, bob.ID)
		bt.open("/orgs/" + org.String())
		bt.el(`.lead`, `You are a member`)
		bt.el(`[data-testid=agents], main .card h2`, `Agents`)
		for _, s := range []string{budgets, hooks} {
			if has, _, _ := bt.p.Has(s); has {
				t.Errorf("bob, a plain member, sees %s", s)
			}
		}
		bt.fits("a member's organisation page")
	})
	tb.t = t
}
