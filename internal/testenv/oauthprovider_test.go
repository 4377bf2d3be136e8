package testenv_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/workbench/workbench/internal/testenv"
)

// recorder is a testing.TB that keeps the provider's complaints instead of failing the test, so a
// test can check that a broken request is named.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) complaints() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

const redirect = "http://127.0.0.1:9/callback"

// noRedirects is a client that stops at the provider's redirect back to the client.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// authorize runs the authorization request and returns the callback's query.
func authorize(t *testing.T, cfg *oauth2.Config, verifier string, opts ...oauth2.AuthCodeOption) url.Values {
	t.Helper()
	resp, err := noRedirects.Get(cfg.AuthCodeURL("the-state", append(opts, oauth2.S256ChallengeOption(verifier))...))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d, want a redirect", resp.StatusCode)
	}
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || !strings.HasPrefix(back.String(), redirect+"?") {
		t.Fatalf("authorize redirected to %q", resp.Header.Get("Location"))
	}
	return back.Query()
}

func config(p *testenv.OAuthProvider, id, secret string, style oauth2.AuthStyle) *oauth2.Config {
	return &oauth2.Config{ClientID: id, ClientSecret: secret, RedirectURL: redirect, Scopes: []string{"read"},
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthorizeURL(), TokenURL: p.TokenURL(), AuthStyle: style}}
}

// The full flow with each client authentication method: the code exchange, the API with the token,
// a refresh that rotates the refresh token, and the old refresh token refused.
func TestOAuthProviderFlow(t *testing.T) {
	for _, tc := range []struct {
		name, auth, secret string
		style              oauth2.AuthStyle
	}{
		{"public", testenv.AuthNone, "", oauth2.AuthStyleInParams},
		{"basic", testenv.AuthBasic, "s3cret/with:odd&chars+", oauth2.AuthStyleInHeader},
		{"post", testenv.AuthPost, "s3cret/with:odd&chars+", oauth2.AuthStyleInParams},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := testenv.NewOAuthProvider(t)
			p.AddClient(testenv.OAuthClient{ID: "app", Secret: tc.secret, RedirectURIs: []string{redirect}, Auth: tc.auth})
			p.Set(func(s *testenv.OAuthSettings) {
				s.Expect = map[string]string{"scope": "read", "prompt": ""}
				s.ExpiresIn, s.RefreshedExpiresIn = 33, 3600
				s.API = map[string]string{"/api/me": `{"login":"ada"}`}
			})
			cfg := config(p, "app", tc.secret, tc.style)
			verifier := oauth2.GenerateVerifier()
			q := authorize(t, cfg, verifier)
			if q.Get("state") != "the-state" || q.Get("code") == "" {
				t.Fatalf("callback %v", q)
			}
			ctx := context.Background()
			tok, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
			if err != nil {
				t.Fatal(err)
			}
			if p.LastClientAuth() != map[string]string{"public": testenv.AuthNone, "basic": testenv.AuthBasic, "post": testenv.AuthPost}[tc.name] {
				t.Errorf("client authenticated by %q", p.LastClientAuth())
			}
			if tok.Extra("expires_in") != float64(33) || tok.Extra("scope") != "read" || tok.RefreshToken == "" {
				t.Fatalf("token %+v", tok)
			}
			if _, err := cfg.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier)); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
				t.Fatalf("a used code: %v, want invalid_grant", err)
			}
			res, err := cfg.Client(ctx, tok).Get(p.URL() + "/api/me")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 || string(body) != `{"login":"ada"}` {
				t.Fatalf("API: %d %s", res.StatusCode, body)
			}

			old := tok.RefreshToken
			tok.Expiry = tok.Expiry.Add(-time.Hour)
			fresh, err := cfg.TokenSource(ctx, tok).Token()
			if err != nil {
				t.Fatal(err)
			}
			if fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == old || fresh.Extra("expires_in") != float64(3600) {
				t.Fatalf("refreshed %+v", fresh)
			}
			stale := &oauth2.Token{RefreshToken: old}
			if _, err := cfg.TokenSource(ctx, stale).Token(); err == nil || !strings.Contains(err.Error(), "invalid_grant") {
				t.Fatalf("a rotated refresh token: %v, want invalid_grant", err)
			}
			issued := p.Issued()
			if p.Exchanges() != 2 || p.Refreshes() != 2 || len(issued) != 2 || issued[1].Access != fresh.AccessToken || issued[1].Grant != "refresh_token" {
				t.Fatalf("exchanges %d, refreshes %d, issued %+v", p.Exchanges(), p.Refreshes(), issued)
			}
			if seen := p.SeenTokens(); len(seen) != 1 || seen[0] != tok.AccessToken {
				t.Fatalf("API saw %v", seen)
			}
		})
	}
}

// Requests that break the protocol are named in a test failure.
func TestOAuthProviderNamesBrokenRequests(t *testing.T) {
	t.Parallel()
	rec := &recorder{TB: t}
	p := testenv.NewOAuthProvider(rec)
	p.AddClient(testenv.OAuthClient{ID: "app", Secret: "sec", RedirectURIs: []string{redirect}, Auth: testenv.AuthBasic})
	ctx := context.Background()
	verifier := oauth2.GenerateVerifier()

	basic := config(p, "app", "sec", oauth2.AuthStyleInHeader)
	inBody := config(p, "app", "sec", oauth2.AuthStyleInParams)
	q := authorize(t, basic, verifier)
	for _, tc := range []struct {
		name string
		do   func() error
		want string
	}{
		{"secret in the body of a Basic client", func() error {
			_, err := inBody.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(verifier))
			return err
		}, "authenticated by client_secret_post, registered for client_secret_basic"},
		{"wrong verifier", func() error {
			_, err := basic.Exchange(ctx, q.Get("code"), oauth2.VerifierOption(oauth2.GenerateVerifier()))
			return err
		}, "does not hash (S256)"},
		{"another redirect_uri at the token endpoint", func() error {
			fresh := authorize(t, basic, verifier)
			other := *basic
			other.RedirectURL = redirect + "/other"
			_, err := other.Exchange(ctx, fresh.Get("code"), oauth2.VerifierOption(verifier))
			return err
		}, "want exactly"},
		{"an unknown code", func() error {
			_, err := basic.Exchange(ctx, "no-such-code", oauth2.VerifierOption(verifier))
			return err
		}, ""},
		{"unknown redirect at authorize", func() error {
			other := *basic
			other.RedirectURL = "http://127.0.0.1:9/elsewhere"
			resp, err := noRedirects.Get(other.AuthCodeURL("s", oauth2.S256ChallengeOption(verifier)))
			if err == nil {
				resp.Body.Close()
			}
			return err
		}, "is not one registered"},
		{"no PKCE", func() error {
			resp, err := noRedirects.Get(basic.AuthCodeURL("s"))
			if err == nil {
				resp.Body.Close()
			}
			return err
		}, `code_challenge_method = "", want "S256"`},
	} {
		before := rec.complaints()
		_ = tc.do()
		got := strings.TrimPrefix(rec.complaints(), before)
		if tc.want == "" {
			if got != "" {
				t.Errorf("%s: complaint %q, want none (an unknown code is only invalid_grant)", tc.name, got)
			}
			continue
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: complaints %q, want one naming %q", tc.name, got, tc.want)
		}
	}
}

// Metadata and registration, deny mode, no rotation, and a Token hook that lies.
func TestOAuthProviderOptions(t *testing.T) {
	t.Parallel()
	p := testenv.NewOAuthProvider(t)
	p.Set(func(s *testenv.OAuthSettings) { s.Metadata, s.Registration = true, true })
	var md map[string]any
	getJSON(t, p.URL()+"/.well-known/oauth-authorization-server", &md)
	if md["issuer"] != p.URL() || md["registration_endpoint"] != p.URL()+"/register" {
		t.Fatalf("metadata %v", md)
	}
	res, err := http.Post(p.URL()+"/register", "application/json", strings.NewReader(`{"redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg map[string]any
	_ = json.NewDecoder(res.Body).Decode(&reg)
	res.Body.Close()
	id, _ := reg["client_id"].(string)
	if res.StatusCode != http.StatusCreated || id == "" || reg["client_secret"] != nil || p.Registrations() != 1 {
		t.Fatalf("registration: %d %v", res.StatusCode, reg)
	}

	cfg := config(p, id, "", oauth2.AuthStyleInParams)
	p.Set(func(s *testenv.OAuthSettings) { s.Deny = true })
	if q := authorize(t, cfg, oauth2.GenerateVerifier()); q.Get("error") != "access_denied" || q.Get("state") != "the-state" || q.Has("code") {
		t.Fatalf("denied callback %v", q)
	}
	p.Set(func(s *testenv.OAuthSettings) {
		s.Deny, s.KeepRefreshToken = false, true
		s.Token = func(r *testenv.TokenReply) {
			if r.Grant == "refresh_token" {
				r.Body["token_type"] = "bot"
			}
		}
	})
	verifier := oauth2.GenerateVerifier()
	ctx := context.Background()
	tok, err := cfg.Exchange(ctx, authorize(t, cfg, verifier).Get("code"), oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the refresh token is kept: it works twice
		tok.Expiry = tok.Expiry.Add(-time.Hour)
		fresh, err := cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: tok.RefreshToken}).Token()
		if err != nil {
			t.Fatal(err)
		}
		if fresh.RefreshToken != tok.RefreshToken || fresh.Extra("token_type") != "bot" {
			t.Fatalf("refresh without rotation %+v", fresh)
		}
	}
}

// OpenID Connect: go-oidc verifies the ID token against the discovery document and the JWKS; the
// nonce is carried; a lie in the claims or another signing key fails verification.
func TestOAuthProviderOpenID(t *testing.T) {
	t.Parallel()
	p := testenv.NewOAuthProvider(t)
	p.AddClient(testenv.OAuthClient{ID: "portal", Secret: "sec", RedirectURIs: []string{redirect}, Auth: testenv.AuthBasic})
	p.Set(func(s *testenv.OAuthSettings) {
		s.OpenID = true
		s.User = testenv.OIDCUser{Subject: "sub-ann", Email: "ann@example.com", Name: "Ann", EmailVerified: true}
	})
	ctx := context.Background()
	op, err := oidc.NewProvider(ctx, p.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg := &oauth2.Config{ClientID: "portal", ClientSecret: "sec", RedirectURL: redirect, Scopes: []string{oidc.ScopeOpenID, "email"}, Endpoint: op.Endpoint()}
	verifier := op.Verifier(&oidc.Config{ClientID: "portal"})
	signIn := func() (*oidc.IDToken, *oauth2.Token, error) {
		v := oauth2.GenerateVerifier()
		tok, err := cfg.Exchange(ctx, authorize(t, cfg, v, oidc.Nonce("n-1")).Get("code"), oauth2.VerifierOption(v))
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := tok.Extra("id_token").(string)
		id, err := verifier.Verify(ctx, raw)
		return id, tok, err
	}
	id, tok, err := signIn()
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Email    string `json:"email"`
		Verified bool   `json:"email_verified"`
	}
	if err := id.Claims(&claims); err != nil || id.Nonce != "n-1" || id.Subject != "sub-ann" || claims.Email != "ann@example.com" || !claims.Verified {
		t.Fatalf("ID token %+v %+v %v", id, claims, err)
	}
	info, err := op.UserInfo(ctx, oauth2.StaticTokenSource(tok))
	if err != nil || info.Email != "ann@example.com" || info.Subject != "sub-ann" {
		t.Fatalf("userinfo %+v %v", info, err)
	}

	p.Set(func(s *testenv.OAuthSettings) { s.Claims = func(c map[string]any) { c["aud"] = "someone-else" } })
	if _, _, err := signIn(); err == nil {
		t.Fatal("an ID token for another audience verified")
	}
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p.Set(func(s *testenv.OAuthSettings) { s.Claims, s.SignWith = nil, other })
	if _, _, err := signIn(); err == nil {
		t.Fatal("an ID token signed by an unpublished key verified")
	}
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", u, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// The protected API answers only live tokens: one the test added, not one revoked, not a request
// without a token; each is recorded.
func TestOAuthProviderAPI(t *testing.T) {
	t.Parallel()
	p := testenv.NewOAuthProvider(t)
	p.Set(func(s *testenv.OAuthSettings) { s.API = map[string]string{"/v1/me": `{"id":1}`} })
	p.AddToken(testenv.IssuedToken{Access: "seeded", ClientID: "app"})
	call := func(tok string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, p.URL()+"/v1/me", nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode == http.StatusUnauthorized && !strings.Contains(res.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("401 without an RFC 6750 challenge: %q", res.Header.Get("WWW-Authenticate"))
		}
		return res.StatusCode
	}
	if got := call("seeded"); got != http.StatusOK {
		t.Fatalf("a seeded token: %d", got)
	}
	if got := call("made-up"); got != http.StatusUnauthorized {
		t.Fatalf("a made-up token: %d", got)
	}
	if got := call(""); got != http.StatusUnauthorized {
		t.Fatalf("no token: %d", got)
	}
	p.RevokeAccess()
	if got := call("seeded"); got != http.StatusUnauthorized {
		t.Fatalf("a revoked token: %d", got)
	}
	if seen := strings.Join(p.SeenTokens(), ","); seen != "seeded,made-up,,seeded" || p.APICalls() != 4 {
		t.Fatalf("seen %q, %d calls", seen, p.APICalls())
	}
}
