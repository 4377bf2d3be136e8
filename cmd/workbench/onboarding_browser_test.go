package main

// A first-time user's onboarding in real headless Chromium. Ada (signed in with a `workbench
// signin-link` link) creates Acme and Globex and invites carol@example.com to both before carol has
// a Workbench account. Carol signs in for the first time with a link the same command mints, on a
// phone (390 px, no sideways scroll): she has her personal organisation, a notice says she is
// invited, the Invitations page lists both; she declines Globex's and accepts Acme's, and lands in
// Acme as a member. Ada's pages no longer show either invitation pending; as Acme's sole owner she is
// offered no Leave, and the server refuses her leaving.

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// cliSigninLink is the link `workbench signin-link --email email` prints for srv, path only.
func cliSigninLink(t *testing.T, srv *e2eServer, email string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"signin-link", "--email", email}, envFunc(srv.Env), &out, &errOut); err != nil {
		t.Fatalf("signin-link --email %s: %v\n%s", email, err, errOut.String())
	}
	link := strings.TrimSpace(out.String())
	if !strings.HasPrefix(link, srv.Base+"/auth/link/") {
		t.Fatalf("signin-link printed %q", out.String())
	}
	return strings.TrimPrefix(link, srv.Base)
}

// gone waits until nothing matches selector on the tab's page.
func (tb *tab) gone(what, selector string) {
	tb.t.Helper()
	tb.waitJS(what, `(s) => !document.querySelector(s)`, selector)
}

func TestOnboardingInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{}, slog.LevelInfo)
	ctx := context.Background()
	reader := srv.M.Organizations.Reader()

	ada := openTab(t, browser, srv.Base)
	ada.open(cliSigninLink(t, srv, "ada@example.com"))
	ada.waitURL(`^/$`)

	orgs := map[string]uuid.UUID{}
	t.Run("ada creates Acme and Globex and invites carol, who has no account", func(t *testing.T) {
		ada.t = t
		for _, name := range []string{"Acme", "Globex"} {
			ada.open("/orgs")
			ada.el(`[data-testid=orgs] tr`, `Personal`)
			ada.fill(`[data-testid=new-org-name]`, name)
			ada.click(`[data-testid=new-org-submit]`, "")
			u := ada.waitURL(`^/orgs/[0-9a-f-]{36}$`)
			ada.el(`h1`, `^`+name+`$`)
			orgs[name] = uuid.MustParse(strings.TrimPrefix(u, "/orgs/"))
			ada.fill(`[data-testid=invite-email]`, "carol@example.com")
			ada.click(`[data-testid=invite-submit]`, "")
			ada.el(`.notice-success`, `carol@example.com is invited`)
			ada.el(`[data-testid=invitations] [data-invitation="carol@example.com"]`, "")
		}
		if _, err := (identityrm.Reader{DB: srv.M.DB}).UserByEmail(ctx, "carol@example.com"); err == nil {
			t.Fatal("carol has an account before her first sign-in; the test means an address nobody uses yet")
		}
	})
	if len(orgs) != 2 {
		t.Fatal("no organisations; the rest cannot run")
	}

	t.Run("the sole owner is offered no Leave, and the server refuses it", func(t *testing.T) {
		ada.t = t
		ada.open("/orgs/" + orgs["Acme"].String())
		ada.el(`[data-member="ada@example.com"] [data-testid=sole-owner]`, `only owner`)
		if ada.evalBool(`() => !!document.querySelector('[data-member="ada@example.com"] [data-testid=remove-member]')`) {
			t.Error("Acme's sole owner is offered Leave")
		}
		me := ada.userOf(t)
		status := ada.eval(fmt.Sprintf(`() => fetch('/api/orgs/%s/members/%s', {method: 'DELETE', headers: {'X-Workbench-CSRF': '1'}}).then((r) => String(r.status))`, orgs["Acme"], me))
		if status != "409" {
			t.Errorf("the sole owner's DELETE of her own membership answered %s; want 409", status)
		}
		if m, err := reader.Membership(ctx, orgs["Acme"], me); err != nil || m.Role != organization.RoleOwner {
			t.Fatalf("ada's membership of Acme after the refused leave: %+v %v", m, err)
		}
	})

	// Carol's browser is her own: a context with its own cookies.
	own, err := browser.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	carol := openTab(t, own, srv.Base)
	carol.phone()
	var carolID uuid.UUID
	t.Run("carol's first sign-in: her personal organisation and a notice of the invitations", func(t *testing.T) {
		carol.t = t
		carol.open(cliSigninLink(t, srv, "carol@example.com"))
		carol.waitURL(`^/$`)
		carol.el(`[data-testid=invite-banner] h2`, `invited to join 2 organisations`)
		carol.fits("the home page with the invitations notice")
		carol.shotOf(`[data-testid=invite-banner]`, "onboarding-notice")
		carolID = carol.userOf(t)
		ms, err := reader.Memberships(ctx, carolID)
		if err != nil || len(ms) != 1 || !ms[0].Personal || ms[0].Role != organization.RoleOwner {
			t.Fatalf("carol's memberships after her first sign-in: %+v %v; want her personal organisation", ms, err)
		}
		carol.open("/orgs")
		carol.el(`[data-testid=orgs] tr`, `Personal`)
		carol.el(`[data-testid=my-invitations] [data-invitation-org=Acme]`, "")
		carol.fits("the organisations page with her invitations")
		carol.open("/integrations")
		carol.click(`[data-testid=invite-review]`, `Review the invitations`)
		carol.waitURL(`^/invitations$`)
		carol.el(`h1`, `^Invitations$`)
		carol.el(`[data-testid=my-invitations] [data-invitation-org=Acme] [data-testid=accept-invitation][aria-label="Accept the invitation to Acme"]`, "")
		carol.el(`[data-testid=my-invitations] [data-invitation-org=Globex] [data-testid=decline-invitation][aria-label="Decline the invitation to Globex"]`, "")
		carol.gone("the notice repeats the invitations on the page that lists them", `[data-testid=invite-banner]`)
		carol.fits("the invitations page")
		carol.shot("onboarding-invitations")
	})
	if carolID == uuid.Nil {
		t.Fatal("carol is not signed in; the rest cannot run")
	}

	t.Run("carol declines Globex's invitation", func(t *testing.T) {
		carol.t = t
		carol.click(`[data-invitation-org=Globex] [data-testid=decline-invitation]`, "")
		carol.el(`.notice-success`, `You declined the invitation to Globex`)
		carol.gone("Globex's invitation still listed after declining", `[data-invitation-org=Globex]`)
		carol.el(`[data-invitation-org=Acme]`, "")
		if _, err := reader.Membership(ctx, orgs["Globex"], carolID); err != organizationsrm.ErrNotFound {
			t.Fatalf("carol's membership of Globex after declining: %v; want none", err)
		}
	})

	t.Run("carol accepts Acme's invitation and lands in Acme as a member", func(t *testing.T) {
		carol.t = t
		carol.click(`[data-invitation-org=Acme] [data-testid=accept-invitation]`, "")
		carol.waitURL(`^/orgs/` + orgs["Acme"].String() + `$`)
		carol.el(`h1`, `^Acme$`)
		carol.el(`.lead`, `You are a member of this organisation`)
		carol.el(`[data-member="carol@example.com"] [data-testid=remove-member]`, `^Leave$`)
		carol.fits("Acme's page")
		if m, err := reader.Membership(ctx, orgs["Acme"], carolID); err != nil || m.Role != organization.RoleMember {
			t.Fatalf("carol's membership of Acme after accepting: %+v %v", m, err)
		}
		carol.open("/orgs")
		carol.el(`[data-testid=orgs] tr`, `Acme`)
		carol.gone("an invitations card after answering both", `[data-testid=my-invitations]`)
		carol.open("/integrations")
		carol.waitJS("the invitations notice never looked at the server", `() => Number(document.querySelector('[data-testid=invite-slot]')?.dataset.checks || 0) > 0`)
		carol.gone("the invitations notice after answering both", `[data-testid=invite-banner]`)
		carol.open("/invitations")
		carol.el(`.empty h2`, `No invitations wait for you`)
	})

	t.Run("ada's pages no longer show the invitations pending", func(t *testing.T) {
		ada.t = t
		ada.open("/orgs/" + orgs["Acme"].String())
		ada.el(`[data-testid=members] [data-member="carol@example.com"]`, "")
		ada.gone("carol's invitation to Acme still pending on ada's page", `[data-invitation="carol@example.com"]`)
		ada.open("/orgs/" + orgs["Globex"].String())
		ada.el(`h1`, `^Globex$`)
		ada.gone("carol's declined invitation to Globex still pending on ada's page", `[data-invitation="carol@example.com"]`)
		if ada.evalBool(`() => !!document.querySelector('[data-member="carol@example.com"]')`) {
			t.Error("carol is a member of Globex after declining")
		}
		for name, id := range orgs {
			if invs, err := srv.M.Organizations.Invitations(ctx, id); err != nil || len(invs) != 0 {
				t.Errorf("%s's invitations after carol answered: %+v %v; want none", name, invs, err)
			}
		}
	})
}

// The same onboarding through SSO, the other sign-in path: the server is set up with a Keycloak realm
// (KEYCLOAK_OIDC_*, here the test environment's OpenID Connect provider), Ada invites carol before she
// has an account, and carol's first sign-in is the sign-in page's SSO button. She lands with her
// personal organisation and the invitation, accepts it, and is Acme's member.
func TestOnboardingBySSOInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	idp := testenv.NewOAuthProvider(t)
	idp.Set(func(s *testenv.OAuthSettings) {
		s.OpenID = true
		s.User = testenv.OIDCUser{Subject: "carol-at-acme", Email: "carol@example.com", Name: "Carol", EmailVerified: true}
	})
	const clientID, secret = "workbench-sso", "sso-secret-0123456789"
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"KEYCLOAK_OIDC_ISSUER": idp.URL(), "KEYCLOAK_OIDC_CLIENT_ID": clientID, "KEYCLOAK_OIDC_CLIENT_SECRET": secret,
	}, slog.LevelWarn)
	idp.AddClient(testenv.OAuthClient{ID: clientID, Secret: secret, RedirectURIs: []string{srv.Base + "/api/auth/keycloak/callback"}})
	ctx := context.Background()
	reader := srv.M.Organizations.Reader()

	ada := openTab(t, browser, srv.Base)
	ada.open(cliSigninLink(t, srv, "ada@example.com"))
	ada.waitURL(`^/$`)
	ada.open("/orgs")
	ada.el(`[data-testid=orgs] tr`, `Personal`)
	ada.fill(`[data-testid=new-org-name]`, "Acme")
	ada.click(`[data-testid=new-org-submit]`, "")
	u := ada.waitURL(`^/orgs/[0-9a-f-]{36}$`)
	acme := uuid.MustParse(strings.TrimPrefix(u, "/orgs/"))
	ada.fill(`[data-testid=invite-email]`, "carol@example.com")
	ada.click(`[data-testid=invite-submit]`, "")
	ada.el(`.notice-success`, `carol@example.com is invited`)
	if _, err := (identityrm.Reader{DB: srv.M.DB}).UserByEmail(ctx, "carol@example.com"); err == nil {
		t.Fatal("carol has an account before her first sign-in")
	}

	own, err := browser.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	carol := openTab(t, own, srv.Base)
	carol.phone()
	carol.open("/signin")
	carol.click(`[data-testid=provider-keycloak]`, `Keycloak`)
	carol.waitURL(`^/$`)
	carol.el(`[data-testid=invite-banner] h2`, `^You are invited to join Acme$`)
	carol.fits("the home page after an SSO sign-in, with the invitation")
	carolID := carol.userOf(t)
	ms, err := reader.Memberships(ctx, carolID)
	if err != nil || len(ms) != 1 || !ms[0].Personal || ms[0].Role != organization.RoleOwner {
		t.Fatalf("carol's memberships after her first SSO sign-in: %+v %v; want her personal organisation", ms, err)
	}
	carol.click(`[data-testid=invite-review]`, `Review the invitation`)
	carol.waitURL(`^/invitations$`)
	carol.click(`[data-invitation-org=Acme] [data-testid=accept-invitation]`, "")
	carol.waitURL(`^/orgs/` + acme.String() + `$`)
	if m, err := reader.Membership(ctx, acme, carolID); err != nil || m.Role != organization.RoleMember {
		t.Fatalf("carol's membership of Acme after accepting: %+v %v", m, err)
	}
	carol.shot("onboarding-sso")
}
