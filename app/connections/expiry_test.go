package connections_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/internal/testenv"
)

// A token answer without expires_in (GitHub OAuth apps) never expires as far as the workbench knows:
// it is used as is for ever, with or without a refresh token, and never triggers a refresh.
func TestTokensWithoutExpiry(t *testing.T) {
	tests := []struct {
		name      string
		noRefresh bool
	}{
		{name: "with a refresh token", noRefresh: false},
		{name: "without a refresh token", noRefresh: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := testenv.NewClock(time.Now())
			e := newEnv(t, "body")
			e.opts = func(c *connections.Config) { c.Now = clock.Now }
			n := e.node(true)
			user := uuid.New()
			e.provider.set(func(p *provider) { p.expiresIn = 0; p.noRefresh = tc.noRefresh })
			n.connectOAuth(e.ctx, user)
			acme, _ := e.catalog.Integration("acme")
			var first string
			for i, skip := range []time.Duration{0, 2 * time.Hour, 400 * 24 * time.Hour} {
				clock.Advance(skip)
				acc, err := n.svc.Access(e.ctx, user, acme, "")
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				tok, err := acc.GetToken(e.ctx)
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if first == "" {
					first = tok
				}
				if tok != first {
					t.Fatalf("call %d got another token", i)
				}
			}
			if got := e.provider.refreshes(); got != 0 {
				t.Fatalf("%d refresh requests for a token without expiry", got)
			}
		})
	}
}
