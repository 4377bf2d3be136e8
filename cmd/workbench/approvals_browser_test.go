package main

// Approvals in real headless Chromium: ada switches remote_echo to Ask at her agent with the
// Connectors page's Ask toggle; her agent (the Go SDK's client, without elicitation, over /mcp with
// her API key) gets APPROVAL_REQUIRED with a portal link. The inbox lists the call with its
// arguments and the navigation's badge counts it; the link opened signed out goes through sign-in
// and back to the approval. On a phone (390 px, no sideways scroll) she reads the tool and its
// arguments and presses Approve: the page shows the outcome, focuses it and the badge empties. The
// agent's call made again with the approval_id runs exactly once (the remote counts it). A second
// call denied elsewhere while its page is open answers the page's Approve with the server's 409,
// shown as a message with the status it has now. The organisation's plugin tools card switches
// utils_echo to Ask (the agent's call is held back) and back to On; an approval that is not one is a
// 404 message.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

func TestApprovalsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	const tok = "tok-approvals-browser-1234"
	remote := connectorstest.NewRemote(t, tok)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","description":"A remote MCP server in the test.","endpoint":{"url":%q},"auth":{"kind":"token","fields":[{"name":"token","label":"Access token","secret":true}]}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	// ada is the admin user, so the startup sign-in link signs her in (the signed-out visit below).
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "WORKBENCH_ADMIN_EMAIL": "ada@example.com",
	}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	agent := organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent}, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}

	// The agent: the Go SDK's client, which cannot ask its user (no elicitation handler).
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "approvals-browser", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp", HTTPClient: &http.Client{Transport: bearer{key: ada.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	type result struct{ Error, Message, ApprovalID, URL, Text string }
	call := func(text, approvalID string) result {
		t.Helper()
		x := ex("remote_echo", map[string]any{"text": text})
		if approvalID != "" {
			x["approval_id"] = approvalID
		}
		r := execute(t, cs, x).Results[0]
		var out result
		json.Unmarshal(r["error"], &out.Error)            //nolint:errcheck // absent on success
		json.Unmarshal(r["message"], &out.Message)        //nolint:errcheck // absent on success
		json.Unmarshal(r["approval_id"], &out.ApprovalID) //nolint:errcheck // only for APPROVAL_REQUIRED
		json.Unmarshal(r["url"], &out.URL)                //nolint:errcheck // only for APPROVAL_REQUIRED
		var res struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(r["result"], &res) //nolint:errcheck // absent on failure
		if len(res.Content) > 0 {
			out.Text = res.Content[0].Text
		}
		return out
	}
	// portal calls the portal's API as ada.
	portal := func(method, path string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, bytes.NewReader(nil))
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
		resp.Body.Close()
		return resp.StatusCode
	}

	tb := openTab(t, browser, srv.Base)
	tb.signIn(srv, ada.ID)
	// A long unbroken argument: the page must wrap it, not scroll sideways.
	text := "hello from the agent " + strings.Repeat("0123456789", 24)
	var held result

	t.Run("the Connectors page switches remote_echo to Ask", func(t *testing.T) {
		tb.t = t
		tb.open("/connectors")
		const row = `article.login[data-server=mcp_remote] tr[data-tool=remote_echo]`
		tb.el(row+` [data-testid=effective]`, `^On`)
		tb.click(row+` [data-testid=ask-agent]`, `^Ask$`)
		tb.el(row+` [data-testid=effective]`, `^Ask\s*each call waits for approval`)
		tb.el(row+` [data-testid=switch-agent]`, `^On$`)
		tb.waitJS("the agent's Ask toggle never read as pressed",
			`(s) => document.querySelector(s).getAttribute('aria-pressed') === 'true'`, row+` [data-testid=ask-agent]`)
		tb.shotOf(`article.login[data-server=mcp_remote]`, "connectors-ask")
	})

	t.Run("the agent's call waits for approval", func(t *testing.T) {
		tb.t = t
		held = call(text, "")
		if held.Error != "APPROVAL_REQUIRED" || held.ApprovalID == "" || held.URL != srv.Base+"/approvals/"+held.ApprovalID {
			t.Fatalf("an Ask tool without elicitation: %+v", held)
		}
		if n := remote.Calls.Load(); n != 0 {
			t.Fatalf("a held-back call reached the remote (%d calls)", n)
		}
	})
	if held.ApprovalID == "" {
		t.FailNow()
	}
	page := strings.TrimPrefix(held.URL, srv.Base)
	item := fmt.Sprintf(`li[data-approval=%q]`, held.ApprovalID)

	t.Run("the inbox lists it and the navigation's badge counts it", func(t *testing.T) {
		tb.t = t
		tb.open("/approvals")
		tb.el(`h1`, `^Approvals$`)
		tb.el(item+` h2`, `^remote_echo$`)
		tb.el(item+` .approval-meta`, `mcp_remote · account default`)
		tb.el(item+` [data-testid=approval-arguments]`, `"text": "hello from the agent 0123456789`)
		tb.el(`nav a[data-nav=approvals] [data-testid=approvals-badge]`, `^1$`)
		tb.waitJS("the Approvals link is never named with its pending count",
			`() => document.querySelector('nav a[data-nav=approvals]').getAttribute('aria-label') === 'Approvals, 1 pending'`)
		tb.shot("approvals-inbox")
		tb.click(item+` [data-testid=review]`, `Review`)
		tb.waitURL(`^` + page + `$`)
		tb.el(`[data-testid=approval-tool]`, `^remote_echo$`)
	})

	t.Run("signed out, the link goes through sign-in and back to the approval", func(t *testing.T) {
		incognito, err := browser.Incognito()
		if err != nil {
			t.Fatal(err)
		}
		other := openTab(t, incognito, srv.Base)
		other.open(page)
		other.waitURL(`^/signin\?next=` + url.QueryEscape(page) + `$`)
		// The startup link (ada's) with the page as next, as the sign-in carries it.
		other.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base) + "?next=" + url.QueryEscape(page))
		other.waitURL(`^` + page + `$`)
		other.el(`[data-testid=approval-tool]`, `^remote_echo$`)
		other.el(`[data-testid=approve]`, `Approve`)
	})

	t.Run("on a phone the approval reads without sideways scroll; Approve shows the outcome", func(t *testing.T) {
		tb.t = t
		if err := tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 390, Height: 844, DeviceScaleFactor: 1, Mobile: true}); err != nil {
			t.Fatal(err)
		}
		defer func() {
			if err := tb.p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1280, Height: 820, DeviceScaleFactor: 1}); err != nil {
				t.Fatal(err)
			}
		}()
		tb.open(page)
		tb.el(`h1`, `Approve a tool call`)
		tb.el(`[data-testid=approval-tool]`, `^remote_echo$`)
		tb.el(`[data-testid=approval-integration]`, `^mcp_remote$`)
		tb.el(`[data-testid=approval-status]`, `^Waiting for you$`)
		tb.el(`[data-testid=approval-arguments]`, `"text": "hello from the agent 0123456789`)
		tb.waitJS("the Always allow checkbox has no label naming it",
			`() => { const c = document.querySelector('[data-testid=approval-always]'); return c.type === 'checkbox' && c.labels.length === 1 && c.labels[0].textContent === 'Always allow this tool for this agent' }`)
		tb.el(`nav a[data-nav=approvals] [data-testid=approvals-badge]`, `^1$`)
		_ = tb.p.Timeout(3 * time.Second).WaitStable(300 * time.Millisecond)
		if !tb.evalBool(`() => document.documentElement.scrollWidth <= document.documentElement.clientWidth`) {
			t.Errorf("the approval page scrolls sideways at 390 px (scrollWidth %s)", tb.eval(`() => document.documentElement.scrollWidth`))
		}
		tb.shot("approval-phone")

		tb.click(`button[data-testid=approve]`, `^Approve$`)
		tb.el(`[data-testid=approval-message] .notice-success`, `Approved: remote_echo`)
		tb.el(`[data-testid=approval-status]`, `^Approved$`)
		tb.el(`[data-testid=approval-decision]`, `Approved by you in the portal`)
		tb.waitJS("the outcome never took the keyboard focus",
			`() => !!document.activeElement && !!document.activeElement.closest('[data-testid=approval-message]')`)
		if tb.evalBool(`() => !!document.querySelector('[data-testid=approve], [data-testid=deny], [data-testid=approval-always]')`) {
			t.Error("a decided approval still offers its buttons")
		}
		tb.waitJS("the badge never emptied after the decision",
			`() => { const a = document.querySelector('nav a[data-nav=approvals]'); return !a.querySelector('.nav-badge') && !a.hasAttribute('aria-label') }`)
		if !tb.evalBool(`() => document.documentElement.scrollWidth <= document.documentElement.clientWidth`) {
			t.Error("the decided approval scrolls sideways at 390 px")
		}
		tb.shot("approval-approved-phone")
	})

	t.Run("the agent's call with the approval_id runs exactly once", func(t *testing.T) {
		tb.t = t
		if r := call(text, held.ApprovalID); r.Text != "echo: "+text || remote.Calls.Load() != 1 {
			t.Fatalf("the approved call: %+v, %d calls", r, remote.Calls.Load())
		}
		if r := call(text, held.ApprovalID); r.Error != "APPROVAL_INVALID" || remote.Calls.Load() != 1 {
			t.Fatalf("the approval used again: %+v, %d calls", r, remote.Calls.Load())
		}
		tb.open(page)
		tb.el(`[data-testid=approval-status]`, `^Approved and run$`)
		tb.el(`[data-testid=approval-decision]`, `Approved by you in the portal`)
		tb.open("/approvals")
		tb.el(`[data-testid=approvals] .empty h2`, `Nothing is waiting for you`)
	})

	t.Run("a decision made elsewhere meanwhile is the server's 409, shown as a message", func(t *testing.T) {
		tb.t = t
		second := call("second", "")
		if second.Error != "APPROVAL_REQUIRED" {
			t.Fatalf("the second call: %+v", second)
		}
		tb.open("/approvals/" + second.ApprovalID)
		tb.el(`[data-testid=approval-status]`, `^Waiting for you$`)
		if status := portal(http.MethodPost, "/api/approvals/"+second.ApprovalID+"/deny"); status != http.StatusOK {
			t.Fatalf("deny through the API: %d", status)
		}
		tb.click(`button[data-testid=approve]`, `^Approve$`)
		tb.el(`[data-testid=approval-message] .notice-error`, `can no longer be decided`)
		tb.el(`[data-testid=approval-status]`, `^Denied$`)
		tb.el(`[data-testid=approval-decision]`, `Denied by you in the portal`)
		if r := call("second", second.ApprovalID); r.Error != "APPROVAL_DENIED" || remote.Calls.Load() != 1 {
			t.Fatalf("the denied call: %+v, %d calls", r, remote.Calls.Load())
		}
	})

	t.Run("the plugin tools card switches utils_echo to Ask and back", func(t *testing.T) {
		tb.t = t
		const card = `[data-testid=plugin-switches-card][data-scope=organization]`
		const row = card + ` [data-tool=utils_echo]`
		tb.open("/orgs/" + organization.PersonalOrganizationID(ada.ID).String())
		tb.fill(card+` [data-testid=plugin-switches-filter]`, "utils_echo")
		tb.el(row+` [data-testid=plugin-effective]`, `^On$`)
		tb.click(row+` [data-testid=plugin-ask]`, `^Ask$`)
		tb.el(`.notice-success`, `utils_echo asks for approval at this organisation`)
		tb.el(row+` [data-testid=plugin-switch]`, `^On$`)
		tb.el(row+` [data-testid=plugin-effective]`, `^Ask\s*On; each call waits for approval$`)
		tb.waitJS("the organisation's Ask toggle never read as pressed",
			`(s) => document.querySelector(s).getAttribute('aria-pressed') === 'true'`, row+` [data-testid=plugin-ask]`)
		r := execute(t, cs, ex("utils_echo", map[string]any{"message": "plug"})).Results[0]
		if !strings.Contains(string(r["error"]), "APPROVAL_REQUIRED") {
			t.Fatalf("utils_echo switched to Ask at the organisation: %s", r)
		}
		tb.click(row+` [data-testid=plugin-ask]`, `^Ask$`)
		tb.el(`.notice-success`, `utils_echo is On at this organisation`)
		tb.el(row+` [data-testid=plugin-effective]`, `^On$`)
		r = execute(t, cs, ex("utils_echo", map[string]any{"message": "plug"})).Results[0]
		if _, failed := r["error"]; failed {
			t.Fatalf("utils_echo back On at the organisation: %s", r)
		}
	})

	t.Run("an approval that is not one is a 404 message", func(t *testing.T) {
		tb.t = t
		tb.open("/approvals/" + uuid.NewString())
		tb.el(`[data-testid=approval-message] .notice-error`, `There is no such approval`)
		tb.el(`[data-testid=back-to-inbox]`, `All approvals`)
	})
}

// eval runs js on the page and returns its answer as text.
func (tb *tab) eval(js string) string {
	tb.t.Helper()
	res, err := tb.page().Eval(js)
	if err != nil {
		tb.t.Fatalf("eval %s: %v", js, err)
	}
	return res.Value.String()
}
