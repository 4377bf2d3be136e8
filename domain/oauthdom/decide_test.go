package oauthdom_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
)

var (
	t0    = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	alice = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	bob   = uuid.MustParse("22222222-2222-4222-8222-222222222222")
)

func TestValidateRedirectURI(t *testing.T) {
	tests := []struct {
		name string
		uri  string
		ok   bool
	}{
		{"https", "https://client.example/cb", true},
		{"https with port and query", "https://client.example:8443/cb?x=1", true},
		{"loopback v4", "http://127.0.0.1:33418/callback", true},
		{"loopback v6", "http://[::1]:33418/callback", true},
		{"localhost", "http://localhost:8080/callback", true},
		{"http remote", "http://client.example/cb", false},
		{"fragment", "https://client.example/cb#x", false},
		{"empty fragment", "https://client.example/cb#", false},
		{"wildcard host", "https://*.client.example/cb", false},
		{"wildcard path", "https://client.example/*", false},
		{"userinfo", "https://user@client.example/cb", false},
		{"custom scheme", "myapp://callback", false},
		{"javascript", "javascript:alert(1)", false},
		{"relative", "/cb", false},
		{"upper-case scheme", "HTTPS://client.example/cb", false},
		{"no host", "https:///cb", false},
		{"space", "https://client.example/c b", false},
		{"empty", "", false},
		{"http look-alike loopback", "http://127.0.0.1.evil.example/cb", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := oauthdom.ValidateRedirectURI(tc.uri)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok {
				if err == nil {
					t.Fatal("accepted")
				}
				if !errors.Is(err, oauthdom.ErrInvalidRedirectURI) || domain.ErrorMessage(err) == "" {
					t.Fatalf("want an invalid_redirect_uri with a reason, got %v", err)
				}
			}
		})
	}
}

func TestDecideClient(t *testing.T) {
	good := oauthdom.RegisterClient{ClientID: "c1", ClientName: "Claude", RedirectURIs: []string{"https://a.example/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, Scopes: []string{"mcp"}, At: t0}
	mod := func(f func(*oauthdom.RegisterClient)) oauthdom.RegisterClient { c := good; f(&c); return c }
	tests := []struct {
		name  string
		state oauthdom.Client
		cmd   oauthdom.RegisterClient
		cause error
		code  domain.Code
	}{
		{name: "ok", cmd: good},
		{name: "no redirect", cmd: mod(func(c *oauthdom.RegisterClient) { c.RedirectURIs = nil }), cause: oauthdom.ErrInvalidRedirectURI, code: domain.CodeInvalid},
		{name: "implicit grant", cmd: mod(func(c *oauthdom.RegisterClient) { c.GrantTypes = []string{"authorization_code", "implicit"} }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "token response", cmd: mod(func(c *oauthdom.RegisterClient) { c.ResponseTypes = []string{"token"} }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "bad scope", cmd: mod(func(c *oauthdom.RegisterClient) { c.Scopes = []string{`a"b`} }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "control in name", cmd: mod(func(c *oauthdom.RegisterClient) { c.ClientName = "a\x00b" }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "right-to-left override in name", cmd: mod(func(c *oauthdom.RegisterClient) { c.ClientName = "Good\u202Eexe.evil" }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "isolate in name", cmd: mod(func(c *oauthdom.RegisterClient) { c.ClientName = "a\u2067b" }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "right-to-left mark in name", cmd: mod(func(c *oauthdom.RegisterClient) { c.ClientName = "a\u200Fb" }), cause: oauthdom.ErrInvalidClientMetadata, code: domain.CodeInvalid},
		{name: "emoji with zero-width joiner is fine", cmd: mod(func(c *oauthdom.RegisterClient) { c.ClientName = "Agent \U0001F469\u200D\U0001F4BB" })},
		{name: "taken id", state: oauthdom.Client{ClientID: "c1"}, cmd: good, code: domain.CodeConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := oauthdom.DecideClient(tc.state, tc.cmd)
			if tc.code == "" {
				if err != nil || len(evs) != 1 {
					t.Fatalf("got %v, %v", evs, err)
				}
				return
			}
			if domain.ErrorCode(err) != tc.code || (tc.cause != nil && !errors.Is(err, tc.cause)) {
				t.Fatalf("got %v, want %s / %v", err, tc.code, tc.cause)
			}
		})
	}
}

func fold(t *testing.T, cmds ...oauthdom.GrantCommand) (oauthdom.Grant, error) {
	t.Helper()
	g := oauthdom.InitialGrant()
	for _, c := range cmds {
		evs, err := oauthdom.DecideGrant(g, c)
		if err != nil {
			return g, err
		}
		for _, ev := range evs {
			g = oauthdom.EvolveGrant(g, ev)
		}
	}
	return g, nil
}

func TestDecideGrant(t *testing.T) {
	issue := oauthdom.IssueCode{RequestID: "r1", ClientID: "c1", UserID: alice, CodeSignature: "code", RedirectURI: "https://a.example/cb",
		CodeChallenge: "x", CodeChallengeMethod: "S256", ExpiresAt: t0.Add(time.Minute), At: t0}
	exchange := oauthdom.Batch{oauthdom.ExchangeCode{CodeSignature: "code", At: t0}, oauthdom.IssueAccessToken{Signature: "at1", At: t0},
		oauthdom.IssueRefreshToken{Signature: "rt1", At: t0}}
	rotate := oauthdom.Batch{oauthdom.RotateRefreshToken{Signature: "rt1", At: t0}, oauthdom.IssueAccessToken{Signature: "at2", At: t0},
		oauthdom.IssueRefreshToken{Signature: "rt2", At: t0}}
	tests := []struct {
		name  string
		cmds  []oauthdom.GrantCommand
		cause error
		code  domain.Code
		check func(*testing.T, oauthdom.Grant)
	}{
		{name: "exchange issues a family", cmds: []oauthdom.GrantCommand{issue, exchange}, check: func(t *testing.T, g oauthdom.Grant) {
			if !g.CodeExchanged || !g.LiveRefresh() || !g.Access["at1"] {
				t.Fatalf("state %+v", g)
			}
		}},
		{name: "plain challenge refused", cmds: []oauthdom.GrantCommand{oauthdom.IssueCode{RequestID: "r1", ClientID: "c1", UserID: alice, CodeSignature: "c",
			RedirectURI: "https://a/cb", CodeChallenge: "x", CodeChallengeMethod: "plain", ExpiresAt: t0, At: t0}}, code: domain.CodeInvalid},
		{name: "code reuse", cmds: []oauthdom.GrantCommand{issue, exchange, exchange}, cause: oauthdom.ErrCodeUsed, code: domain.CodeConflict},
		{name: "wrong code", cmds: []oauthdom.GrantCommand{issue, oauthdom.ExchangeCode{CodeSignature: "other", At: t0}}, code: domain.CodeNotFound},
		{name: "rotation", cmds: []oauthdom.GrantCommand{issue, exchange, rotate}, check: func(t *testing.T, g oauthdom.Grant) {
			if !g.Refresh["rt1"].Rotated || g.Refresh["rt2"].Rotated || !g.LiveRefresh() {
				t.Fatalf("state %+v", g)
			}
		}},
		{name: "refresh reuse", cmds: []oauthdom.GrantCommand{issue, exchange, rotate, oauthdom.RotateRefreshToken{Signature: "rt1", At: t0}},
			cause: oauthdom.ErrRefreshTokenSpent, code: domain.CodeConflict},
		{name: "no refresh after family revoked", cmds: []oauthdom.GrantCommand{issue, exchange,
			oauthdom.RevokeRefreshTokens{Reason: oauthdom.ReasonRefreshTokenReuse, At: t0}, rotate}, cause: oauthdom.ErrRefreshTokenSpent, code: domain.CodeConflict},
		{name: "revoke is idempotent", cmds: []oauthdom.GrantCommand{issue, exchange, oauthdom.RevokeAccessTokens{Reason: oauthdom.ReasonCodeReuse, At: t0},
			oauthdom.RevokeAccessTokens{Reason: oauthdom.ReasonCodeReuse, At: t0}}, check: func(t *testing.T, g oauthdom.Grant) {
			if !g.AccessRevoked {
				t.Fatal("access not revoked")
			}
		}},
		{name: "unknown reason", cmds: []oauthdom.GrantCommand{issue, oauthdom.RevokeAccessTokens{Reason: "why not", At: t0}}, code: domain.CodeInvalid},
		{name: "the agent was deleted", cmds: []oauthdom.GrantCommand{issue, exchange, oauthdom.Batch{oauthdom.RevokeForUser{UserID: alice, At: t0},
			oauthdom.RevokeAccessTokens{Reason: oauthdom.ReasonAgentDeleted, At: t0}}}, check: func(t *testing.T, g oauthdom.Grant) {
			if !g.RefreshRevoked || !g.AccessRevoked || g.LiveRefresh() {
				t.Fatalf("state %+v", g)
			}
		}},
		{name: "user revokes outstanding code", cmds: []oauthdom.GrantCommand{issue, oauthdom.RevokeForUser{UserID: alice, At: t0}}, check: func(t *testing.T, g oauthdom.Grant) {
			if !g.CodeRevoked || !g.RefreshRevoked || g.AccessRevoked {
				t.Fatalf("state %+v", g)
			}
		}},
		{name: "revoked code cannot be exchanged", cmds: []oauthdom.GrantCommand{issue, oauthdom.RevokeForUser{UserID: alice, At: t0}, exchange},
			cause: oauthdom.ErrGrantRevoked, code: domain.CodeConflict},
		{name: "another user cannot revoke", cmds: []oauthdom.GrantCommand{issue, oauthdom.RevokeForUser{UserID: bob, At: t0}}, code: domain.CodeNotFound},
		{name: "batch is all or nothing", cmds: []oauthdom.GrantCommand{issue, oauthdom.Batch{oauthdom.ExchangeCode{CodeSignature: "code", At: t0},
			oauthdom.IssueAccessToken{At: t0}}}, code: domain.CodeInvalid, check: func(t *testing.T, g oauthdom.Grant) {
			if g.CodeExchanged {
				t.Fatal("a refused batch recorded part of itself")
			}
		}},
		{name: "missing grant", cmds: []oauthdom.GrantCommand{oauthdom.RevokeRefreshTokens{Reason: oauthdom.ReasonUser, At: t0}}, code: domain.CodeNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := fold(t, tc.cmds...)
			if tc.code == "" && err != nil {
				t.Fatal(err)
			}
			if tc.code != "" && (domain.ErrorCode(err) != tc.code || (tc.cause != nil && !errors.Is(err, tc.cause))) {
				t.Fatalf("got %v, want %s / %v", err, tc.code, tc.cause)
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}
