package connections_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// Slack's oauth.v2.access issues a bot token (access_token, token_type "bot") and a user token
// (authed_user.access_token, token_type "user"), each with its own refresh token when token rotation
// is on. Both are stored; the manifest's token_source picks the injected one; a rotated token is
// refreshed with its own refresh token and the other token is kept.
func TestSlackUserAndBotTokens(t *testing.T) {
	const slackAuth = `,"token_types":["bot","user"]`
	tests := []struct {
		name       string
		oauth      string
		userExpiry int // the user token's expires_in; 10 makes the first call refresh it
		wantPrefix string
		refreshes  int64
		wantRT     string // the kind of refresh token presented
	}{
		{name: "user token by default", oauth: slackAuth + `,"token_source":{"default":"authed_user","fallback":"access_token"}`,
			userExpiry: 43200, wantPrefix: "xoxe.xoxp-1"},
		{name: "bot token without token_source", oauth: slackAuth, userExpiry: 43200, wantPrefix: "xoxe.xoxb-1"},
		{name: "bot token chosen", oauth: slackAuth + `,"token_source":{"default":"access_token"}`, userExpiry: 43200, wantPrefix: "xoxe.xoxb-1"},
		{name: "a rotated user token is refreshed with its own refresh token", oauth: slackAuth + `,"token_source":{"default":"authed_user","fallback":"access_token"}`,
			userExpiry: 10, wantPrefix: "xoxe.xoxp-2", refreshes: 1, wantRT: "xoxe-1-user-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnvWith(t, "basic", envOptions{acmeOAuth: func(*provider) string { return tc.oauth }})
			e.provider.set(func(p *provider) { p.slack = true; p.expiresIn = tc.userExpiry })
			n := e.node(true)
			user := uuid.New()
			n.connectOAuth(e.ctx, user)
			acme, _ := e.catalog.Integration("acme")
			for range 2 {
				acc, err := n.svc.Access(e.ctx, user, acme, "")
				if err != nil {
					t.Fatal(err)
				}
				tok, err := acc.GetToken(e.ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(tok, tc.wantPrefix) {
					t.Fatalf("injected %q, want %s…", tok, tc.wantPrefix)
				}
				req, _ := http.NewRequest(http.MethodGet, e.provider.srv.URL+"/api/search.messages", nil)
				if err := acc.Injector.Inject(e.ctx, req); err != nil || req.Header.Get("Authorization") != "Bearer "+tok {
					t.Fatalf("injected %q: %v", req.Header.Get("Authorization"), err)
				}
			}
			if got := e.provider.refreshes(); got != tc.refreshes {
				t.Fatalf("%d refreshes, want %d", got, tc.refreshes)
			}
			if tc.wantRT != "" && !strings.HasPrefix(e.provider.lastRefresh, tc.wantRT) {
				t.Fatalf("presented refresh token %q, want one of kind %s", e.provider.lastRefresh, tc.wantRT)
			}
			assertNotStored(t, n, "xoxe.xoxp-1")
			assertNotStored(t, n, "xoxe.xoxb-1")
		})
	}
}
