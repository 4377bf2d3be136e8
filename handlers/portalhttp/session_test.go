package portalhttp_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/workbench/workbench/handlers/portalhttp"
	"github.com/workbench/workbench/handlers/websession"
)

// cookie is the session cookie b holds for n.
func (b *browser) cookie(n *node) *http.Cookie {
	b.t.Helper()
	u, _ := url.Parse(n.srv.URL)
	for _, c := range b.client.Jar.Cookies(u) {
		if c.Name == websession.CookieName {
			return &http.Cookie{Name: c.Name, Value: c.Value}
		}
	}
	b.t.Fatal("the browser holds no session cookie")
	return nil
}

// replay is another browser presenting a copied cookie, as someone who kept it would.
func replay(n *node, c *http.Cookie) *browser {
	b := newBrowser(n.env.t)
	u, _ := url.Parse(n.srv.URL)
	b.client.Jar.SetCookies(u, []*http.Cookie{c})
	return b
}

func TestLogoutEndsTheSessionOnEveryReplica(t *testing.T) {
	e := newEnv(t)
	n1, n2 := e.node(), e.node()
	user := n1.createUser("eve@example.com")
	b := n1.signedIn(user)
	if got := b.do(http.MethodPost, n1.srv.URL+"/api/apikey", "", nil); got.status != http.StatusCreated {
		t.Fatalf("mint: %d %s", got.status, got.body)
	}
	old := b.cookie(n1)
	for _, n := range []*node{n1, n2} {
		if got := replay(n, old).get(n.srv.URL + "/api/me"); got.status != http.StatusOK {
			t.Fatalf("before sign-out: %d %s", got.status, got.body)
		}
	}

	if got := b.do(http.MethodPost, n1.srv.URL+"/api/auth/logout", "", nil); got.status != http.StatusNoContent {
		t.Fatalf("logout: %d %s", got.status, got.body)
	}
	for i, n := range []*node{n1, n2} {
		kept := replay(n, old)
		if got := kept.get(n.srv.URL + "/api/me"); got.status != http.StatusUnauthorized {
			t.Fatalf("replica %d: the signed-out cookie still works: %d %s", i+1, got.status, got.body)
		}
		if got := kept.do(http.MethodPost, n.srv.URL+"/api/apikey/reveal", "", nil); got.status != http.StatusUnauthorized {
			t.Fatalf("replica %d: the signed-out cookie still reveals the key: %d %s", i+1, got.status, got.body)
		}
	}
	// Signing out again, with or without the old cookie, is fine.
	if got := replay(n2, old).do(http.MethodPost, n2.srv.URL+"/api/auth/logout", "", nil); got.status != http.StatusNoContent {
		t.Fatalf("second logout: %d %s", got.status, got.body)
	}
	// A new sign-in works.
	if got := n2.signedIn(user).get(n2.srv.URL + "/api/me"); got.status != http.StatusOK {
		t.Fatalf("new session after sign-out: %d %s", got.status, got.body)
	}
}

func TestSignOutEverywhereEndsEverySessionOfTheUser(t *testing.T) {
	e := newEnv(t)
	n1, n2 := e.node(), e.node()
	user := n1.createUser("fay@example.com")
	other := n1.createUser("gus@example.com")
	laptop, phone := n1.signedIn(user), n2.signedIn(user)
	bystander := n1.signedIn(other)
	for _, b := range []*browser{laptop, phone, bystander} {
		if got := b.get(n1.srv.URL + "/api/me"); got.status != http.StatusOK {
			t.Fatalf("before: %d %s", got.status, got.body)
		}
	}
	phoneCookie := phone.cookie(n2)

	if got := laptop.do(http.MethodPost, n1.srv.URL+"/api/auth/logout-everywhere", "", map[string]string{websession.CSRFHeader: "-"}); got.status != http.StatusForbidden {
		t.Fatalf("a cross-site sign-out everywhere was accepted: %d %s", got.status, got.body)
	}
	if got := laptop.do(http.MethodPost, n1.srv.URL+"/api/auth/logout-everywhere", "", nil); got.status != http.StatusNoContent {
		t.Fatalf("logout-everywhere: %d %s", got.status, got.body)
	}
	for _, n := range []*node{n1, n2} {
		if got := laptop.get(n.srv.URL + "/api/me"); got.status != http.StatusUnauthorized {
			t.Fatalf("the laptop's session survived: %d %s", got.status, got.body)
		}
		if got := replay(n, phoneCookie).get(n.srv.URL + "/api/me"); got.status != http.StatusUnauthorized {
			t.Fatalf("the phone's session survived: %d %s", got.status, got.body)
		}
	}
	if got := bystander.get(n1.srv.URL + "/api/me"); got.status != http.StatusOK {
		t.Fatalf("another user's session ended too: %d %s", got.status, got.body)
	}
	// The cut is at the moment of the sign-out: a session issued after it is good.
	e.clock.Advance(time.Millisecond)
	if got := n2.signedIn(user).get(n2.srv.URL + "/api/me"); got.status != http.StatusOK {
		t.Fatalf("a new session after sign-out everywhere: %d %s", got.status, got.body)
	}
	// Without a session there is nothing to end.
	if got := newBrowser(t).do(http.MethodPost, n1.srv.URL+"/api/auth/logout-everywhere", "", nil); got.status != http.StatusUnauthorized {
		t.Fatalf("logout-everywhere without a session: %d %s", got.status, got.body)
	}
}

func TestRevealNeedsAFreshSession(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	user := n.createUser("hal@example.com")
	b := n.signedIn(user)
	minted := b.do(http.MethodPost, n.srv.URL+"/api/apikey", "", nil).json(t)
	if got := b.do(http.MethodPost, n.srv.URL+"/api/apikey/reveal", "", nil).json(t); got["key"] != minted["key"] {
		t.Fatalf("a fresh session cannot reveal: %v", got)
	}

	e.clock.Advance(websession.FreshFor + time.Second)
	got := b.do(http.MethodPost, n.srv.URL+"/api/apikey/reveal", "", nil)
	if got.status != http.StatusForbidden || got.json(t)["error"] != portalhttp.CodeReauthRequired || got.json(t)["key"] != nil {
		t.Fatalf("an old session revealed the key: %d %s", got.status, got.body)
	}
	if got.header.Get("Cache-Control") != "no-store" {
		t.Errorf("the refusal may be cached: %v", got.header)
	}
	// The old session still does everything else.
	if got := b.get(n.srv.URL + "/api/apikey"); got.status != http.StatusOK {
		t.Fatalf("the old session lost the key's prefix: %d %s", got.status, got.body)
	}
	// Signing in again makes it fresh.
	if got := n.signedIn(user).do(http.MethodPost, n.srv.URL+"/api/apikey/reveal", "", nil).json(t); got["key"] != minted["key"] {
		t.Fatalf("a new session cannot reveal: %v", got)
	}
}

func TestSignOutEverywhereWithTheAPIKey(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	user := n.createUser("ida@example.com")
	b := n.signedIn(user)
	key, _ := b.do(http.MethodPost, n.srv.URL+"/api/apikey", "", nil).json(t)["key"].(string)
	if key == "" {
		t.Fatal("no key minted")
	}
	other := n.signedIn(user)
	script := newBrowser(t)

	if got := script.do(http.MethodPost, n.srv.URL+"/api/auth/logout-everywhere", "", map[string]string{"Authorization": "Bearer wb_not-a-real-key", websession.CSRFHeader: "-"}); got.status != http.StatusUnauthorized {
		t.Fatalf("a wrong key signed the user out: %d %s", got.status, got.body)
	}
	// A bad key is not rescued by a good cookie.
	if got := b.do(http.MethodPost, n.srv.URL+"/api/auth/logout-everywhere", "", map[string]string{"Authorization": "Bearer wb_not-a-real-key"}); got.status != http.StatusUnauthorized {
		t.Fatalf("a wrong key with a good cookie: %d %s", got.status, got.body)
	}
	if got := b.get(n.srv.URL + "/api/me"); got.status != http.StatusOK {
		t.Fatalf("the refused requests ended the session: %d %s", got.status, got.body)
	}
	if got := script.do(http.MethodPost, n.srv.URL+"/api/auth/logout-everywhere", "", map[string]string{"Authorization": "Bearer " + key, websession.CSRFHeader: "-"}); got.status != http.StatusNoContent {
		t.Fatalf("logout-everywhere with the key: %d %s", got.status, got.body)
	}
	for _, br := range []*browser{b, other} {
		if got := br.get(n.srv.URL + "/api/me"); got.status != http.StatusUnauthorized {
			t.Fatalf("a session survived: %d %s", got.status, got.body)
		}
	}
	// The key itself is untouched: agents keep working.
	if _, ok := n.authenticates(key); !ok {
		t.Fatal("signing out everywhere revoked the API key")
	}
}
