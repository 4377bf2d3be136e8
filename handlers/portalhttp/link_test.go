package portalhttp_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/signindom"
)

func TestStartupLink(t *testing.T) {
	e := newEnv(t)
	e.settings.Providers = nil // the embedded default: no SSO
	a, b := e.node(), e.node()
	if a.signin.SSOConfigured() {
		t.Fatal("SSO configured without providers")
	}
	issue := func() string {
		t.Helper()
		link, err := a.signin.IssueStartupLink(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(link, e.publicURL+"/auth/link/") {
			t.Fatalf("link %q", link)
		}
		return link
	}
	// on replays a link's path on a replica.
	on := func(n *node, link string) string { return n.srv.URL + strings.TrimPrefix(link, e.publicURL) }

	t.Run("works once", func(t *testing.T) {
		link := issue()
		br := newBrowser(t)
		got := br.get(on(a, link))
		if got.status != http.StatusFound || got.header.Get("Location") != "/" || sessionCookie(got.header) == nil {
			t.Fatalf("first use: %d %v %s", got.status, got.header, got.body)
		}
		if got.header.Get("Cache-Control") != "no-store" || got.header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("headers: %v", got.header)
		}
		me := br.get(a.srv.URL + "/api/me").json(t)
		if me["email"] != "admin@workbench.localhost" {
			t.Fatalf("me: %v", me)
		}
		again := newBrowser(t).get(on(a, link))
		if again.status != http.StatusConflict || sessionCookie(again.header) != nil || !strings.Contains(string(again.body), "already used") {
			t.Fatalf("second use: %d %s", again.status, again.body)
		}
	})

	t.Run("refused on a second replica after use", func(t *testing.T) {
		link := issue()
		if got := newBrowser(t).get(on(a, link)); got.status != http.StatusFound {
			t.Fatalf("first use on a: %d %s", got.status, got.body)
		}
		if got := newBrowser(t).get(on(b, link)); got.status != http.StatusConflict || sessionCookie(got.header) != nil {
			t.Fatalf("second use on b: %d %s", got.status, got.body)
		}
	})

	t.Run("one winner when two replicas race", func(t *testing.T) {
		link := issue()
		var wg sync.WaitGroup
		results := make([]int, 8)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := a
				if i%2 == 1 {
					n = b
				}
				results[i] = newBrowser(t).get(on(n, link)).status
			}()
		}
		wg.Wait()
		won := 0
		for _, s := range results {
			switch s {
			case http.StatusFound:
				won++
			case http.StatusConflict:
			default:
				t.Errorf("status %d", s)
			}
		}
		if won != 1 {
			t.Fatalf("%d redemptions succeeded: %v", won, results)
		}
	})

	t.Run("refused after 15 minutes", func(t *testing.T) {
		link := issue()
		e.clock.Advance(signindom.LinkTTL)
		defer e.clock.Advance(-signindom.LinkTTL)
		got := newBrowser(t).get(on(b, link))
		if got.status != http.StatusConflict || !strings.Contains(string(got.body), "expired") {
			t.Fatalf("late use: %d %s", got.status, got.body)
		}
	})

	t.Run("good just before 15 minutes", func(t *testing.T) {
		e.clock.Freeze()
		defer e.clock.Thaw()
		link := issue()
		e.clock.Advance(signindom.LinkTTL - time.Second)
		defer e.clock.Advance(-(signindom.LinkTTL - time.Second))
		if got := newBrowser(t).get(on(a, link)); got.status != http.StatusFound {
			t.Fatalf("use at 14:59: %d %s", got.status, got.body)
		}
	})

	t.Run("every start gets a new link", func(t *testing.T) {
		first, second := issue(), issue()
		if first == second {
			t.Fatal("two links alike")
		}
	})

	t.Run("unknown and malformed tokens", func(t *testing.T) {
		for _, tok := range []string{strings.Repeat("A", 43), "short", strings.Repeat("A", 42) + "%21"} {
			got := newBrowser(t).get(a.srv.URL + "/auth/link/" + tok)
			if got.status != http.StatusNotFound || sessionCookie(got.header) != nil {
				t.Errorf("token %q: %d %s", tok, got.status, got.body)
			}
		}
	})

	t.Run("a safe next is kept", func(t *testing.T) {
		for next, want := range map[string]string{"/oauth/authorize?client_id=x": "/oauth/authorize?client_id=x", "//evil.example": "/"} {
			got := newBrowser(t).get(on(a, issue()) + "?next=" + next)
			if got.header.Get("Location") != want {
				t.Errorf("next %q: redirected to %q", next, got.header.Get("Location"))
			}
		}
	})
}

// Sign-in link redemption is limited per client address, like client registration: past the limit
// the answer is 429 with Retry-After, and even a good link waits.
func TestLinkRedemptionRateLimited(t *testing.T) {
	e := newEnv(t)
	e.settings.Providers = nil
	e.linkLimit = 3
	a := e.node()
	for i := range 3 {
		if got := newBrowser(t).get(a.srv.URL + "/auth/link/" + strings.Repeat("A", 43)); got.status != http.StatusNotFound {
			t.Fatalf("attempt %d: %d %s", i+1, got.status, got.body)
		}
	}
	link, err := a.signin.IssueStartupLink(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := newBrowser(t).get(a.srv.URL + strings.TrimPrefix(link, e.publicURL))
	if got.status != http.StatusTooManyRequests || got.header.Get("Retry-After") == "" || sessionCookie(got.header) != nil {
		t.Fatalf("past the limit: %d Retry-After %q %s", got.status, got.header.Get("Retry-After"), got.body)
	}
}
