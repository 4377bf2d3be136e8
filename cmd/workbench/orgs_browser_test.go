package main

// The organisation and guild pages in real headless Chromium: the signed-in admin sees their
// personal organisation, creates one, invites an existing user (a member once he accepts) and a new
// address (pending), accepts and declines invitations of their own on the list page, creates a guild and an agent in it, makes the agent's API key and uses it at /mcp (the
// key acts as that agent, whose chain is the organisation and the guild), then manages the guild's
// members on the guild page. Screenshots go where portal_browser_test.go puts its own.

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// fill types text into the input matched by selector, replacing what it held.
func (tb *tab) fill(selector, text string) {
	tb.t.Helper()
	e := tb.el(selector, "")
	if err := e.SelectAllText(); err != nil {
		tb.t.Fatal(err)
	}
	if err := e.Input(text); err != nil {
		tb.t.Fatalf("type into %s: %v", selector, err)
	}
}

// choose picks the option whose text matches re in the select matched by selector.
func (tb *tab) choose(selector, re string) {
	tb.t.Helper()
	if err := tb.el(selector, "").Select([]string{re}, true, rod.SelectorTypeRegex); err != nil {
		tb.t.Fatalf("choose /%s/ in %s: %v", re, selector, err)
	}
}

func TestOrganizationPagesInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{}, slog.LevelInfo)
	bob := srv.user(t, "bob@example.com")
	tb := openTab(t, browser, srv.Base)
	ctx := context.Background()

	tb.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base))
	tb.waitURL(`^/$`)

	var acme uuid.UUID
	t.Run("the list shows the personal organisation; create another", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Organisations`)
		tb.waitURL(`^/orgs$`)
		tb.el(`[data-testid=orgs] tr`, `Personal`)
		tb.shot("orgs")
		tb.fill(`[data-testid=new-org-name]`, "Acme")
		tb.click(`[data-testid=new-org-submit]`, "")
		u := tb.waitURL(`^/orgs/[0-9a-f-]{36}$`)
		acme = uuid.MustParse(strings.TrimPrefix(u, "/orgs/"))
		tb.el(`h1`, `^Acme$`)
		tb.el(`.lead`, `You are an? owner`)
	})
	if acme == uuid.Nil {
		t.Fatal("no organisation; the rest cannot run")
	}

	t.Run("invite a user and an address", func(t *testing.T) {
		tb.t = t
		tb.fill(`[data-testid=invite-email]`, "bob@example.com")
		tb.choose(`[data-testid=invite-role]`, `^admin$`)
		tb.click(`[data-testid=invite-submit]`, "")
		tb.el(`.notice-success`, `bob@example.com is invited`)
		tb.el(`[data-testid=invitations] [data-invitation="bob@example.com"]`, "")
		acceptAs(t, srv, bob.ID, bob.Email, acme)
		tb.open("/orgs/" + acme.String())
		tb.el(`[data-member="bob@example.com"] [data-testid=member-role-select]`, "")
		tb.fill(`[data-testid=invite-email]`, "carol@example.com")
		tb.click(`[data-testid=invite-submit]`, "")
		tb.el(`.notice-success`, `carol@example.com is invited`)
		tb.el(`[data-testid=invitations] [data-invitation="carol@example.com"]`, "")
		tb.fill(`[data-testid=invite-email]`, "dan@example.com")
		tb.click(`[data-testid=invite-submit]`, "")
		tb.click(`[data-invitation="dan@example.com"] [data-testid=revoke-invitation]`, "")
		tb.el(`.notice-success`, `invitation of dan@example.com was withdrawn`)
		if invs, err := srv.M.Organizations.Invitations(ctx, acme); err != nil || len(invs) != 1 || invs[0].Email != "carol@example.com" {
			t.Fatalf("invitations after the withdrawal: %+v %v", invs, err)
		}
		tb.choose(`[data-member="bob@example.com"] [data-testid=member-role-select]`, `^member$`)
		tb.el(`.notice-success`, `bob@example\.com is now member`)
		tb.choose(`[data-member="bob@example.com"] [data-testid=member-role-select]`, `^admin$`)
		tb.el(`.notice-success`, `bob@example\.com is now admin`)
		m, err := srv.M.Organizations.Reader().Membership(ctx, acme, bob.ID)
		if err != nil || m.Role != organization.RoleAdmin {
			t.Fatalf("bob's membership: %+v %v", m, err)
		}
	})

	var crawler uuid.UUID
	var guild uuid.UUID
	var crawlerKey string
	t.Run("a guild, and an agent in it with its own key", func(t *testing.T) {
		tb.t = t
		tb.fill(`[data-testid=new-guild-name]`, "Research")
		tb.click(`[data-testid=new-guild-submit]`, "")
		tb.el(`[data-testid=guilds] [data-guild=Research]`, "")
		tb.fill(`[data-testid=new-agent-name]`, "crawler")
		tb.choose(`[data-testid=new-agent-guild]`, `^Research$`)
		tb.click(`[data-testid=new-agent-submit]`, "")
		row := tb.el(`[data-agent-name=crawler]`, "")
		id, err := row.Attribute("data-agent")
		if err != nil || id == nil {
			t.Fatalf("the agent row has no id: %v", err)
		}
		crawler = uuid.MustParse(*id)
		tb.el(`[data-agent-name=crawler] [data-testid=agent-guild]`, `Research`)
		tb.el(`[data-agent-name=crawler] [data-testid=agent-key-prefix]`, `none`)
		tb.click(`[data-agent-name=crawler] [data-testid=agent-key]`, "")
		tb.el(`.notice-success`, `API key of crawler is ready`)
		key := tb.value(`[data-testid=key-slot] [data-testid=secret]`)
		crawlerKey = key
		tb.el(`[data-agent-name=crawler] [data-testid=agent-key-prefix]`, regexp.QuoteMeta(identitydom.DisplayPrefix(key)))
		tb.el(`[data-agent-name=crawler] [data-testid=agent-key]`, `Rotate key`)
		tb.shot("org")

		if code := mcpStatus(t, srv.Base, key); code != 200 {
			t.Fatalf("initialize with the agent's key: %d", code)
		}
		o, err := identityrm.Reader{DB: srv.M.DB}.OwnerByKeyHash(ctx, identitydom.HashAPIKey(key))
		if err != nil || o.AgentID != crawler {
			t.Fatalf("the key acts as %+v, %v; want agent %s", o, err, crawler)
		}
		c, err := srv.M.Organizations.Reader().Chain(ctx, crawler)
		if err != nil || c.OrganizationID != acme || c.GuildID == uuid.Nil {
			t.Fatalf("chain: %+v %v", c, err)
		}
		guild = c.GuildID
	})

	t.Run("a plugin tool switched Off for the organisation's agents", func(t *testing.T) {
		tb.t = t
		echoRun := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":"hi"}}]}}}`
		if out := rpc(t, srv.Base, crawlerKey, echoRun); !strings.Contains(out, "hi") || strings.Contains(out, "did not run") {
			t.Fatalf("the agent's utils_echo before any switch: %s", out)
		}
		tb.fill(`[data-testid=plugin-switches-filter]`, "utils_echo")
		tb.el(`[data-tool=utils_echo] [data-testid=plugin-effective]`, `^On$`)
		tb.click(`[data-tool=utils_echo] [data-testid=plugin-switch]`, `—`)
		tb.el(`.notice-success`, `utils_echo is Off at this organisation`)
		tb.el(`[data-tool=utils_echo] [data-testid=plugin-switch]`, `^Off$`)
		tb.el(`[data-tool=utils_echo] [data-testid=plugin-effective]`, `switched Off by organisation Acme`)
		if out := rpc(t, srv.Base, crawlerKey, echoRun); !strings.Contains(out, "switched Off by organisation Acme for this agent; it did not run") {
			t.Fatalf("the agent's utils_echo after the organisation's Off: %s", out)
		}
		// The agent's own card says why, and its switch cannot be pressed: the organisation's Off binds it.
		tb.click(`[data-agent-name=crawler] [data-testid=agent-plugin-tools]`, "")
		tb.fill(`[data-testid=agent-plugin-switches] [data-testid=plugin-switches-filter]`, "utils_echo")
		tb.el(`[data-testid=agent-plugin-switches] [data-tool=utils_echo] [data-testid=plugin-effective]`, `switched Off by organisation Acme`)
		if d, err := tb.el(`[data-testid=agent-plugin-switches] [data-tool=utils_echo] [data-testid=plugin-switch]`, "").Property("disabled"); err != nil || !d.Bool() {
			t.Fatalf("the agent's switch of a tool its organisation switched Off can be pressed (disabled=%v, %v)", d, err)
		}
		tb.click(`[data-tool=utils_echo] [data-testid=plugin-switch]`, `^Off$`)
		tb.el(`.notice-success`, `utils_echo is On at this organisation`)
		tb.el(`[data-tool=utils_echo] [data-testid=plugin-effective]`, `^On$`)
		if out := rpc(t, srv.Base, crawlerKey, echoRun); strings.Contains(out, "did not run") {
			t.Fatalf("the agent's utils_echo after the organisation's On: %s", out)
		}
	})

	t.Run("the guild page: add a member, see its agents", func(t *testing.T) {
		tb.t = t
		tb.click(`[data-testid=guilds] a`, `Research`)
		tb.waitURL(`^/orgs/` + acme.String() + `/guilds/` + guild.String() + `$`)
		tb.el(`h1`, `^Research$`)
		tb.el(`[data-testid=guild-agents] [data-agent-name=crawler]`, "")
		tb.el(`[data-testid=plugin-switches-card][data-scope=guild] h2`, `Plugin tools of guild Research`)
		tb.choose(`[data-testid=add-guild-member-select]`, `^bob@example\.com$`)
		tb.click(`[data-testid=add-guild-member-submit]`, "")
		tb.el(`[data-testid=guild-members] [data-member="bob@example.com"]`, "")
		tb.shot("guild")
		g, err := srv.M.Organizations.Reader().Guild(ctx, guild)
		if err != nil || len(g.Members) != 1 || g.Members[0] != bob.ID {
			t.Fatalf("guild members: %+v %v", g, err)
		}
	})

	t.Run("move the agent out of the guild", func(t *testing.T) {
		tb.t = t
		tb.click(`a.btn`, `Back to Acme`)
		tb.waitURL(`^/orgs/` + acme.String() + `$`)
		tb.choose(`[data-agent-name=crawler] [data-testid=agent-guild-select]`, `^No guild$`)
		tb.el(`.notice-success`, `crawler is in no guild now`)
		if c, err := srv.M.Organizations.Reader().Chain(ctx, crawler); err != nil || c.GuildID != uuid.Nil || c.OrganizationID != acme {
			t.Fatalf("chain after the move: %+v %v", c, err)
		}
	})

	t.Run("deleting the agent stops its key", func(t *testing.T) {
		tb.t = t
		tb.click(`[data-agent-name=crawler] [data-testid=agent-delete]`, "")
		tb.click(`[data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `crawler was deleted`)
		if _, err := srv.M.Organizations.Reader().Chain(ctx, crawler); err != organizationsrm.ErrNotFound {
			t.Fatalf("chain of the deleted agent: %v", err)
		}
		if _, err := (identityrm.Reader{DB: srv.M.DB}).LiveKeyFor(ctx, tb.userOf(t), crawler); err != identityrm.ErrNotFound {
			t.Fatalf("the deleted agent's key is still live: %v", err)
		}
	})

	t.Run("the signed-in user's own invitations: accept one, decline another", func(t *testing.T) {
		tb.t = t
		me, err := (identityrm.Reader{DB: srv.M.DB}).UserByID(ctx, tb.userOf(t))
		if err != nil {
			t.Fatal(err)
		}
		md := eventstore.Metadata{Actor: bob.ID.String()}
		orgsOfBob := map[string]uuid.UUID{}
		for _, name := range []string{"Globex", "Initech"} {
			id, err := srv.M.Organizations.Create(ctx, bob.ID, bob.Email, name, md)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := srv.M.Organizations.Invite(ctx, bob.ID, id, me.Email, organization.RoleMember, md); err != nil {
				t.Fatal(err)
			}
			orgsOfBob[name] = id
		}
		tb.open("/orgs")
		tb.el(`[data-testid=my-invitations] [data-invitation-org=Initech]`, "")
		tb.shot("invitations")
		tb.click(`[data-invitation-org=Initech] [data-testid=decline-invitation]`, "")
		tb.el(`.notice-success`, `You declined the invitation to Initech`)
		tb.click(`[data-invitation-org=Globex] [data-testid=accept-invitation]`, "")
		tb.waitURL(`^/orgs/` + orgsOfBob["Globex"].String() + `$`)
		tb.el(`h1`, `^Globex$`)
		if m, err := srv.M.Organizations.Reader().Membership(ctx, orgsOfBob["Globex"], me.ID); err != nil || m.Role != organization.RoleMember {
			t.Fatalf("membership of Globex after accepting: %+v %v", m, err)
		}
		if _, err := srv.M.Organizations.Reader().Membership(ctx, orgsOfBob["Initech"], me.ID); err != organizationsrm.ErrNotFound {
			t.Fatalf("membership of Initech after declining: %v", err)
		}
	})

	t.Run("another organisation's page is not found", func(t *testing.T) {
		tb.t = t
		tb.open("/orgs/" + organization.PersonalOrganizationID(bob.ID).String())
		tb.el(`.empty h2`, `No such organisation`)
	})
}

// userOf is the signed-in user of the tab.
func (tb *tab) userOf(t *testing.T) uuid.UUID {
	t.Helper()
	raw, err := tb.p.Timeout(10 * time.Second).Eval(`() => fetch('/api/me').then(r => r.json()).then(m => m.id)`)
	if err != nil {
		t.Fatal(err)
	}
	return uuid.MustParse(raw.Value.Str())
}

// acceptAs accepts user's pending invitation to org, as the user would in the portal.
func acceptAs(t *testing.T, srv *e2eServer, user uuid.UUID, email string, org uuid.UUID) {
	t.Helper()
	ctx := context.Background()
	invs, err := srv.M.Organizations.PendingInvitations(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range invs {
		if inv.OrganizationID == org {
			if _, err := srv.M.Organizations.AcceptInvitation(ctx, user, email, inv.ID, eventstore.Metadata{Actor: user.String()}); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("%s has no invitation to %s", email, org)
}
