package main

// Try a tool (issue 30, item 6) in real headless Chromium: a signed-in user finds a built-in tool,
// gets a form made from its JSON Schema (an enum with its default, a required mark, each control
// labelled), runs it and reads the result; runs a connector tool of his agent's login whose result
// carries an image, shown as an image; a form left without a required value is refused before any
// run; and a plain member acting as his agent in an organisation whose owner switched a tool Off sees
// it listed as switched off, not offered. Every run is recorded with via "portal".

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
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

// onePixelPNG is a 1×1 PNG.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="

func TestTryToolInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const tok = "tok-try-browser-77"
	remote := connectorstest.NewRemote(t, tok)
	png, err := base64.StdEncoding.DecodeString(onePixelPNG)
	if err != nil {
		t.Fatal(err)
	}
	mcp.AddTool(remote.MCP, &mcp.Tool{Name: "snapshot", Description: "Take a snapshot."}, func(context.Context, *mcp.CallToolRequest, connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a snapshot"}, &mcp.ImageContent{MIMEType: "image/png", Data: png}}}, nil, nil
	})
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": writeRemoteConnector(t, remote), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	ada, bob := srv.user(t, "ada@example.com"), srv.user(t, "bob@example.com")
	orgs := srv.M.Organizations
	for _, u := range []e2eUser{ada, bob} {
		if err := orgs.SignedIn(ctx, u.ID, u.Email, md); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := srv.M.Connectors.Connect(ctx, ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote",
		Owner: login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(ada.ID)}, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}

	tb := openTab(t, browser, srv.Base)
	tb.signIn(srv, ada.ID)
	// From an integration's card to its tools on the Try a tool page.
	tb.open("/integrations")
	tb.click(`article[data-integration=utils] [data-testid=try-link]`, `Try its tools`)
	tb.waitURL(`^/try\?integration=utils$`)
	tb.el(`nav a[data-nav=try][aria-current=page]`, `Try a tool`)
	tb.el(`[data-testid=try-tool][data-tool=utils_time]`, "")
	tb.el(`[data-testid=try-integration] option:checked`, `Utilities`)
	// A built-in tool with an enum, a default and a required argument.
	tb.el(`[data-testid=try-search]`, "").MustInput("hash")
	tb.click(`[data-testid=try-find]`, "")
	tb.click(`[data-testid=try-tool][data-tool=utils_hash]`, "")
	tb.el(`[data-testid=try-form][data-tool=utils_hash] h2`, `utils_hash`)
	tb.el(`label[for=arg-text]`, `text`)
	tb.el(`[data-testid=required-text]`, "")
	tb.el(`label[for=arg-algorithm]`, `algorithm`)
	if got := tb.text(`#arg-algorithm option:checked`); got != "sha256" {
		t.Fatalf("the enum's default is not selected: %q", got)
	}
	if has, _, err := tb.page().Has(`[data-testid=required-algorithm]`); err != nil || has {
		t.Fatalf("an optional argument is marked required (%v)", err)
	}
	// Left empty, the required argument stops the run in the page: nothing is recorded.
	tb.click(`[data-testid=try-run]`, "")
	tb.el(`[data-testid=try-result] .notice-error`, `text is required`)
	tb.el(`#arg-text`, "").MustInput("abc")
	tb.el(`#arg-encoding`, "").MustSelect("base64")
	tb.click(`[data-testid=try-run]`, "")
	tb.el(`[data-testid=try-ok] [data-testid=try-json]`, `ungWv48Bz\+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=`)
	tb.shot("try-tool-hash")

	// A connector tool of ada's default agent's login: its text block as text, its image as an image.
	tb.el(`[data-testid=try-integration]`, "").MustSelect("Every integration")
	tb.el(`[data-testid=try-search]`, "").MustSelectAllText().MustInput("snapshot")
	tb.click(`[data-testid=try-find]`, "")
	tb.click(`[data-testid=try-tool][data-tool=remote_snapshot]`, "")
	tb.el(`[data-testid=try-form][data-tool=remote_snapshot] #arg-text`, "").MustInput("now")
	tb.click(`[data-testid=try-run]`, "")
	tb.el(`[data-testid=try-ok] [data-testid=try-text]`, `a snapshot`)
	tb.waitJS("the image block drawn as a loaded image", `() => { const i = document.querySelector('[data-testid=try-image]'); return !!i && i.complete && i.naturalWidth === 1; }`)
	tb.shot("try-tool-image")

	runs := 0
	for _, e := range srv.events(t, execution.TypeToolExecuted) {
		var rec execution.ToolExecuted
		if err := json.Unmarshal(e.Data, &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Via != "portal" || rec.UserID != ada.ID {
			t.Fatalf("a run from the portal recorded as %+v", rec)
		}
		runs++
	}
	if runs != 2 {
		t.Fatalf("%d runs recorded, want 2 (the refused form is not one)", runs)
	}

	// Bob, a plain member of Acme whose owner switched utils_echo Off there: acting as his agent in
	// Acme he is not offered it, and reads why; as his default agent he is.
	acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.Invite(ctx, ada.ID, acme, bob.Email, organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	invs, err := orgs.PendingInvitations(ctx, bob.Email)
	if err != nil || len(invs) != 1 {
		t.Fatalf("bob's invitations: %+v, %v", invs, err)
	}
	if _, err := orgs.AcceptInvitation(ctx, bob.ID, bob.Email, invs[0].ID, md); err != nil {
		t.Fatal(err)
	}
	bobBot, err := orgs.CreateAgent(ctx, bob.ID, acme, "bob-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	if code, body := portalDo(t, srv.M, ada.ID, "PUT", srv.Base+"/api/tools/switches",
		map[string]any{"owner_scope": "organization", "owner_id": acme.String(), "tool": "utils_echo", "on": false}); code != 204 {
		t.Fatalf("the owner's Off at Acme: %d %s", code, body)
	}
	tb2 := openTab(t, browser, srv.Base)
	tb2.signIn(srv, bob.ID)
	tb2.open("/try?q=echo")
	tb2.el(`[data-testid=try-tool][data-tool=utils_echo]`, "")
	tb2.el(`[data-testid=try-agent]`, "").MustSelect("bob-bot · Acme")
	tb2.el(`[data-testid=try-unavailable] li[data-tool=utils_echo]`, `switched Off by organisation Acme`)
	if has, _, err := tb2.page().Has(`[data-testid=try-tool][data-tool=utils_echo]`); err != nil || has {
		t.Fatalf("a tool switched Off for bob-bot is offered (%v)", err)
	}
	if !strings.Contains(bobBot.String(), "-") {
		t.Fatal("bob-bot has no id")
	}
	tb2.shot("try-tool-member-off")
}
