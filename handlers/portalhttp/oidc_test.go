package portalhttp_test

import (
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/handlers/websession"
)

// ssoSignIn walks a browser through the whole sign-in: our login route, the provider's authorize
// endpoint, and our callback (after tamper, when set, rewrites the callback URL). It returns the
// callback's answer.
func (n *node) ssoSignIn(t *testing.T, b *browser, next string, tamper func(string) string) response {
	t.Helper()
	login := b.get(n.srv.URL + "/api/auth/google/login?next=" + url.QueryEscape(next))
	if login.status != http.StatusFound {
		t.Fatalf("login: %d %s", login.status, login.body)
	}
	authURL := login.header.Get("Location")
	if !strings.HasPrefix(authURL, n.env.idp.srv.URL+"/authorize?") {
		t.Fatalf("login sent the browser to %q", authURL)
	}
	var flow *http.Cookie
	for _, c := range (&http.Response{Header: login.header}).Cookies() {
		if c.Name == signin.FlowCookie {
			flow = c
		}
	}
	if flow == nil || !flow.HttpOnly || flow.SameSite != http.SameSiteLaxMode || flow.Path != "/api/auth/google/callback" || flow.MaxAge <= 0 {
		t.Fatalf("flow cookie: %+v", flow)
	}
	consent := b.get(authURL)
	if consent.status != http.StatusFound {
		t.Fatalf("authorize: %d %s", consent.status, consent.body)
	}
	cb := consent.header.Get("Location")
	if !strings.HasPrefix(cb, n.env.publicURL+"/api/auth/google/callback?") {
		t.Fatalf("the provider sent the browser to %q", cb)
	}
	if tamper != nil {
		cb = tamper(cb)
	}
	return b.get(cb)
}

func sessionCookie(h http.Header) *http.Cookie {
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == websession.CookieName && c.Value != "" {
			return c
		}
	}
	return nil
}

func TestSSOSignIn(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	otherKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	claim := func(k string, v any) func(*idp) {
		return func(p *idp) { p.claims = func(c map[string]any) { c[k] = v } }
	}
	tests := []struct {
		name   string
		setup  func(*idp)
		tamper func(string) string
		next   string
		status int
		where  string // the redirect on success; the page must contain this on failure
	}{
		{"verified email signs in", nil, nil, "/settings?tab=keys", http.StatusFound, "/settings?tab=keys"},
		{"email_verified as the string true", claim("email_verified", "true"), nil, "", http.StatusFound, "/"},
		{"an unsafe next goes home", nil, nil, "https://evil.example/", http.StatusFound, "/"},
		{"unverified email refused", claim("email_verified", false), nil, "", http.StatusForbidden, "has not verified"},
		{"no email_verified claim refused", func(p *idp) { p.claims = func(c map[string]any) { delete(c, "email_verified") } }, nil, "", http.StatusForbidden, "has not verified"},
		{"wrong nonce refused", claim("nonce", "another-nonce"), nil, "", http.StatusUnauthorized, "not made for this sign-in"},
		{"missing nonce refused", func(p *idp) { p.claims = func(c map[string]any) { delete(c, "nonce") } }, nil, "", http.StatusUnauthorized, "not made for this sign-in"},
		{"wrong audience refused", claim("aud", "someone-else"), nil, "", http.StatusUnauthorized, "could not be verified"},
		{"several audiences without azp refused", claim("aud", []string{oidcClientID, "someone-else"}), nil, "", http.StatusUnauthorized, "issued to another client"},
		{"wrong issuer refused", claim("iss", "https://evil.example"), nil, "", http.StatusUnauthorized, "could not be verified"},
		{"expired token refused", claim("exp", time.Now().Add(-time.Minute).Unix()), nil, "", http.StatusUnauthorized, "could not be verified"},
		{"token signed by another key refused", func(p *idp) { p.signWith = otherKey }, nil, "", http.StatusUnauthorized, "could not be verified"},
		{"provider error", func(p *idp) { p.denied = true }, nil, "", http.StatusUnauthorized, "access_denied"},
		{"state changed refused", nil, func(cb string) string {
			u, _ := url.Parse(cb)
			q := u.Query()
			q.Set("state", "forged")
			u.RawQuery = q.Encode()
			return u.String()
		}, "", http.StatusBadRequest, "does not belong to the sign-in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.idp.set(func(p *idp) { p.claims, p.signWith, p.denied = nil, nil, false })
			if tt.setup != nil {
				e.idp.set(tt.setup)
			}
			b := newBrowser(t)
			got := n.ssoSignIn(t, b, tt.next, tt.tamper)
			if got.status != tt.status {
				t.Fatalf("callback: %d %s, want %d", got.status, got.body, tt.status)
			}
			cleared := false
			for _, c := range (&http.Response{Header: got.header}).Cookies() {
				cleared = cleared || (c.Name == signin.FlowCookie && c.MaxAge < 0)
			}
			if !cleared {
				t.Errorf("the flow cookie was not cleared")
			}
			me := b.get(n.srv.URL + "/api/me")
			if tt.status != http.StatusFound {
				if !strings.Contains(string(got.body), tt.where) || got.header.Get("Content-Type") != "text/html; charset=utf-8" {
					t.Errorf("error page %q lacks %q", got.body, tt.where)
				}
				if sessionCookie(got.header) != nil || me.status != http.StatusUnauthorized {
					t.Fatalf("a refused sign-in left a session (me: %d)", me.status)
				}
				return
			}
			if loc := got.header.Get("Location"); loc != tt.where {
				t.Errorf("redirect to %q, want %q", loc, tt.where)
			}
			c := sessionCookie(got.header)
			if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
				t.Fatalf("session cookie: %+v", c)
			}
			m := me.json(t)
			if me.status != http.StatusOK || m["email"] != "ann@example.com" || m["display_name"] != "Ann Lee" || m["id"] == "" {
				t.Fatalf("me: %d %v", me.status, m)
			}
		})
	}

	t.Run("the same address is the same user", func(t *testing.T) {
		e.idp.set(func(p *idp) { p.claims, p.signWith, p.denied = nil, nil, false })
		var ids []any
		for range 2 {
			b := newBrowser(t)
			if got := n.ssoSignIn(t, b, "", nil); got.status != http.StatusFound {
				t.Fatalf("callback: %d %s", got.status, got.body)
			}
			ids = append(ids, b.get(n.srv.URL + "/api/me").json(t)["id"])
		}
		if ids[0] != ids[1] {
			t.Fatalf("two sign-ins as one address made two users: %v", ids)
		}
	})

	t.Run("a callback in another browser is refused", func(t *testing.T) {
		e.idp.set(func(p *idp) { p.claims, p.signWith, p.denied = nil, nil, false })
		var stolen string
		n.ssoSignIn(t, newBrowser(t), "", func(cb string) string { stolen = cb; return e.publicURL + "/api/auth/google/callback?state=x" })
		got := newBrowser(t).get(stolen)
		if got.status != http.StatusBadRequest || sessionCookie(got.header) != nil {
			t.Fatalf("callback without the flow cookie: %d %s", got.status, got.body)
		}
	})

	t.Run("a replayed callback is refused", func(t *testing.T) {
		e.idp.set(func(p *idp) { p.claims, p.signWith, p.denied = nil, nil, false })
		b := newBrowser(t)
		var cb string
		if got := n.ssoSignIn(t, b, "", func(s string) string { cb = s; return s }); got.status != http.StatusFound {
			t.Fatalf("callback: %d", got.status)
		}
		if got := b.get(cb); got.status != http.StatusBadRequest || sessionCookie(got.header) != nil {
			t.Fatalf("replayed callback: %d %s", got.status, got.body)
		}
	})

	t.Run("a flow older than FlowTTL is refused", func(t *testing.T) {
		e.idp.set(func(p *idp) { p.claims, p.signWith, p.denied = nil, nil, false })
		got := n.ssoSignIn(t, newBrowser(t), "", func(cb string) string { e.clock.Advance(signin.FlowTTL); return cb })
		e.clock.Advance(-signin.FlowTTL)
		if got.status != http.StatusBadRequest || !strings.Contains(string(got.body), "longer than") {
			t.Fatalf("late callback: %d %s", got.status, got.body)
		}
	})

	t.Run("unknown provider", func(t *testing.T) {
		got := newBrowser(t).get(n.srv.URL + "/api/auth/github/login")
		if got.status != http.StatusNotFound {
			t.Fatalf("login with an unknown provider: %d", got.status)
		}
	})
}

func TestSSOAllowedDomains(t *testing.T) {
	e := newEnv(t)
	e.settings.AllowedDomains = []string{"corp.example"}
	n := e.node()
	got := n.ssoSignIn(t, newBrowser(t), "", nil)
	if got.status != http.StatusForbidden || !strings.Contains(string(got.body), "corp.example") {
		t.Fatalf("sign-in from another domain: %d %s", got.status, got.body)
	}
	e.idp.set(func(p *idp) { p.email = "bo@corp.example" })
	if got := n.ssoSignIn(t, newBrowser(t), "", nil); got.status != http.StatusFound {
		t.Fatalf("sign-in from the allowed domain: %d %s", got.status, got.body)
	}
}

func TestProvidersAndLogout(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	got := newBrowser(t).get(n.srv.URL + "/api/auth/providers")
	if got.status != http.StatusOK || strings.TrimSpace(string(got.body)) != `{"providers":[{"id":"google","name":"Google"}]}` {
		t.Fatalf("providers: %d %s", got.status, got.body)
	}

	user := n.createUser("cy@example.com")
	b := n.signedIn(user)
	if got := b.do(http.MethodPost, n.srv.URL+"/api/auth/logout", "", map[string]string{websession.CSRFHeader: "-", "Origin": "https://evil.example"}); got.status != http.StatusForbidden || got.json(t)["error"] != "CROSS_ORIGIN" {
		t.Fatalf("cross-origin logout: %d %s", got.status, got.body)
	}
	if got := b.get(n.srv.URL + "/api/me"); got.status != http.StatusOK {
		t.Fatalf("me after a refused logout: %d", got.status)
	}
	if got := b.do(http.MethodPost, n.srv.URL+"/api/auth/logout", "", map[string]string{"Origin": n.sessions.Origin()}); got.status != http.StatusNoContent {
		t.Fatalf("logout: %d %s", got.status, got.body)
	}
	if got := b.get(n.srv.URL + "/api/me"); got.status != http.StatusUnauthorized || got.json(t)["error"] != "unauthenticated" {
		t.Fatalf("me after logout: %d %s", got.status, got.body)
	}
}
