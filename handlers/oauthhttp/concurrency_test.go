package oauthhttp_test

import (
	"net/http"
	"sync"
	"testing"
)

// Of concurrent uses of one refresh token, or of one code, exactly one gets tokens: the grant's
// optimistic concurrency decides, whatever the read model said to each request.
func TestConcurrentReuseHasOneWinner(t *testing.T) {
	e := newEnv(t, envOptions{})
	race := func(t *testing.T, try func() response) {
		const n = 8
		var wg sync.WaitGroup
		results := make([]response, n)
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = try() }()
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			if r.status == http.StatusOK {
				won++
			}
		}
		if won != 1 {
			t.Fatalf("%d of %d concurrent uses got tokens, want 1", won, n)
		}
	}
	t.Run("refresh token", func(t *testing.T) {
		clientID, tok := e.connect(appRedirect)
		race(t, func() response { return e.refresh(clientID, tok.refresh) })
	})
	t.Run("code", func(t *testing.T) {
		clientID := e.register(appRedirect)
		verifier, challenge := pkce()
		code := e.authorize(e.authParams(clientID, appRedirect, challenge))
		race(t, func() response { return e.exchange(clientID, appRedirect, code, verifier) })
	})
}
