package connections_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// connectExpiring connects user on n with a token that already needs a refresh (it expires within
// the 30-second window); later grants last an hour.
func connectExpiring(t *testing.T, e *env, n *node, user uuid.UUID) {
	t.Helper()
	e.provider.set(func(p *provider) { p.expiresIn = 10 })
	n.connectOAuth(e.ctx, user)
	e.provider.set(func(p *provider) { p.expiresIn = 3600 })
}

// tokens calls Access and getToken concurrently, count times on each node, and returns the tokens.
func tokens(t *testing.T, e *env, user uuid.UUID, count int, nodes ...*node) ([]string, []error) {
	t.Helper()
	return tokensOf(t, e, user, "", count, nodes...)
}

// tokensOf is tokens for the user's account labelled account.
func tokensOf(t *testing.T, e *env, user uuid.UUID, account string, count int, nodes ...*node) ([]string, []error) {
	t.Helper()
	acme, _ := e.catalog.Integration("acme")
	var mu sync.Mutex
	var toks []string
	var errs []error
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, n := range nodes {
		for range count {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				acc, err := n.svc.Access(e.ctx, user, acme, account)
				var tok string
				if err == nil {
					tok, err = acc.GetToken(e.ctx)
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil {
					errs = append(errs, err)
				} else {
					toks = append(toks, tok)
				}
			}()
		}
	}
	close(start)
	wg.Wait()
	return toks, errs
}

func TestRefresh(t *testing.T) {
	t.Run("200 concurrent calls make one refresh request", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		connectExpiring(t, e, n, user)
		e.provider.set(func(p *provider) { p.refreshDelay = 50 * time.Millisecond })
		toks, errs := tokens(t, e, user, 200, n)
		if len(errs) > 0 {
			t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
		}
		if got := e.provider.refreshes(); got != 1 {
			t.Fatalf("%d refresh requests reached the provider, want 1", got)
		}
		for _, tok := range toks {
			if tok != toks[0] || !strings.HasPrefix(tok, "at-2-") {
				t.Fatalf("calls got different or stale tokens: %q vs %q", tok, toks[0])
			}
		}
	})
	t.Run("two replicas make one refresh request", func(t *testing.T) {
		e := newEnv(t, "basic")
		a := e.node(true)
		b := e.node(false)
		user := uuid.New()
		connectExpiring(t, e, a, user)
		e.provider.set(func(p *provider) { p.refreshDelay = 200 * time.Millisecond })
		toks, errs := tokens(t, e, user, 100, a, b)
		if len(errs) > 0 {
			t.Fatalf("%d calls failed, first: %v", len(errs), errs[0])
		}
		if got := e.provider.refreshes(); got != 1 {
			t.Fatalf("%d refresh requests reached the provider, want 1", got)
		}
		for _, tok := range toks {
			if tok != toks[0] {
				t.Fatalf("replicas disagree on the token: %q vs %q", tok, toks[0])
			}
		}
	})
	t.Run("two accounts refresh once each, on two replicas", func(t *testing.T) {
		e := newEnv(t, "basic")
		a := e.node(true)
		b := e.node(false)
		user := uuid.New()
		e.provider.set(func(p *provider) { p.expiresIn = 10 })
		a.connectOAuthAs(e.ctx, user, "")
		a.connectOAuthAs(e.ctx, user, "work")
		e.provider.set(func(p *provider) { p.expiresIn = 3600; p.refreshDelay = 100 * time.Millisecond })
		var wg sync.WaitGroup
		got := map[string][]string{}
		var mu sync.Mutex
		for _, account := range []string{"", "work"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				toks, errs := tokensOf(t, e, user, account, 50, a, b)
				mu.Lock()
				defer mu.Unlock()
				if len(errs) > 0 {
					t.Errorf("account %q: %d calls failed, first: %v", account, len(errs), errs[0])
				}
				got[account] = toks
			}()
		}
		wg.Wait()
		if n := e.provider.refreshes(); n != 2 {
			t.Fatalf("%d refresh requests reached the provider, want 2 (one per account)", n)
		}
		for account, toks := range got {
			for _, tok := range toks {
				if tok != toks[0] {
					t.Fatalf("account %q: calls got different tokens: %q vs %q", account, tok, toks[0])
				}
			}
		}
		if got[""][0] == got["work"][0] {
			t.Fatalf("both accounts got the token %q", got[""][0])
		}
		// invalid_grant on one account withdraws that one only.
		e.provider.set(func(p *provider) { p.expiresIn = 10 })
		a.connectOAuthAs(e.ctx, user, "work")
		e.provider.set(func(p *provider) { p.refreshMode = "invalid_grant" })
		if _, errs := tokensOf(t, e, user, "work", 1, a); len(errs) != 1 || domain.ErrorCode(errs[0]) != domain.CodeNotConnected ||
			!strings.Contains(domain.ErrorMessage(errs[0]), "reconnect with connect('acme', account 'work')") {
			t.Fatalf("work after invalid_grant: %v; want NOT_CONNECTED saying how to reconnect work", errs)
		}
		acme, _ := e.catalog.Integration("acme")
		if _, err := a.svc.Access(e.ctx, user, acme, "work"); !strings.Contains(domain.ErrorMessage(err), `acme account "work" needs re-authorization`) ||
			!strings.Contains(domain.ErrorMessage(err), "reconnect it with connect('acme', account 'work')") {
			t.Fatalf("a later call on work: %v; want it named, with how to reconnect that account", err)
		}
		if toks, errs := tokensOf(t, e, user, "", 1, b); len(errs) > 0 || toks[0] != got[""][0] {
			t.Fatalf("the default account after work's invalid_grant: %v %v", toks, errs)
		}
	})
	t.Run("invalid_grant needs re-authorization", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		connectExpiring(t, e, n, user)
		e.provider.set(func(p *provider) { p.refreshMode = "invalid_grant" })
		_, errs := tokens(t, e, user, 1, n)
		if len(errs) != 1 || domain.ErrorCode(errs[0]) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(errs[0]), "connect('acme')") {
			t.Fatalf("got %v, want NOT_CONNECTED naming connect('acme')", errs)
		}
		acme, _ := e.catalog.Integration("acme")
		if _, err := n.svc.Access(e.ctx, user, acme, ""); domain.ErrorCode(err) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(err), "re-authorization") {
			t.Fatalf("a later call: %v", err)
		}
		if conn, _ := n.svc.Connected(e.ctx, user); conn["acme"] {
			t.Fatal("still listed as connected")
		}
	})
	t.Run("no refresh token stored", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		e.provider.set(func(p *provider) { p.noRefresh = true })
		connectExpiring(t, e, n, user)
		_, errs := tokens(t, e, user, 1, n)
		if len(errs) != 1 || !strings.Contains(domain.ErrorMessage(errs[0]), "reconnect with connect('acme')") || e.provider.refreshes() != 0 {
			t.Fatalf("got %v after %d refresh requests", errs, e.provider.refreshes())
		}
	})
	t.Run("a refresh without a new refresh token keeps the old one", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		connectExpiring(t, e, n, user)
		// Each refresh answers with a short-lived token and no refresh token, so the next call
		// refreshes again, presenting the original refresh token, which the provider still honours.
		e.provider.set(func(p *provider) { p.refreshMode = "keep"; p.expiresIn = 10 })
		for i := range 3 {
			toks, errs := tokens(t, e, user, 1, n)
			if len(errs) > 0 {
				t.Fatalf("refresh %d: %v", i+1, errs[0])
			}
			if got := e.provider.refreshes(); got != int64(i+1) {
				t.Fatalf("after call %d: %d refresh requests", i+1, got)
			}
			_ = toks
		}
	})
}
