package signin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// FlowCookie is the cookie that binds an SSO sign-in to the browser that started it.
const FlowCookie = "workbench_signin_flow"

// FlowTTL is how long a browser has between leaving for the provider and coming back.
const FlowTTL = 10 * time.Minute

// Causes of the refusals of Complete, for errors.Is; each comes wrapped in a *domain.Error whose
// message a person can act on.
var (
	ErrNoFlow           = errors.New("no sign-in in progress in this browser")
	ErrStateMismatch    = errors.New("the state does not match the sign-in this browser started")
	ErrProviderRefused  = errors.New("the provider sent an error instead of a code")
	ErrTokenExchange    = errors.New("the code exchange failed")
	ErrIDToken          = errors.New("the ID token is not valid")
	ErrNonceMismatch    = errors.New("the ID token's nonce does not match")
	ErrEmailNotVerified = errors.New("the provider has not verified the email address")
	ErrDomainNotAllowed = errors.New("the email domain may not sign in")
)

// flow is what the flow cookie seals: the provider, the OAuth state, the OpenID nonce, the PKCE
// verifier, where to go afterwards, and the expiry. It is sealed with AES-GCM, so the browser can
// neither read the verifier nor change a field.
type flow struct {
	Provider string `json:"p"`
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	Next     string `json:"x"`
	Expires  int64  `json:"e"`
}

const flowAAD = "workbench-signin-flow:v1"

func (s *Service) sealFlow(f flow) (string, error) {
	plain, err := json.Marshal(f)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(flowAAD))), nil
}

func (s *Service) openFlow(value string) (flow, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(raw) < s.aead.NonceSize() {
		return flow{}, false
	}
	plain, err := s.aead.Open(nil, raw[:s.aead.NonceSize()], raw[s.aead.NonceSize():], []byte(flowAAD))
	if err != nil {
		return flow{}, false
	}
	var f flow
	if json.Unmarshal(plain, &f) != nil {
		return flow{}, false
	}
	return f, true
}

// RedirectURI is the callback registered with a provider: <SERVER_PUBLIC_URL>/api/auth/<id>/callback.
func (s *Service) RedirectURI(providerID string) string {
	return s.publicURL + "/api/auth/" + providerID + "/callback"
}

func (s *Service) flowCookie(providerID, value string, maxAge int) *http.Cookie {
	c := &http.Cookie{
		Name: FlowCookie, Value: value, Path: "/api/auth/" + providerID + "/callback",
		MaxAge: maxAge, HttpOnly: true, Secure: s.secure,
		// Lax: the provider sends the browser back with a top-level GET, which carries Lax cookies.
		SameSite: http.SameSiteLaxMode,
	}
	if maxAge > 0 {
		c.Expires = s.clock().Add(time.Duration(maxAge) * time.Second)
	}
	return c
}

// ClearFlowCookie removes the flow cookie of a provider.
func (s *Service) ClearFlowCookie(providerID string) *http.Cookie {
	return s.flowCookie(providerID, "", -1)
}

func (s *Service) provider(id string) (*provider, error) {
	p, ok := s.providers[id]
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "there is no sign-in provider %q; the configured ones are listed at /api/auth/providers", id)
	}
	return p, nil
}

func (s *Service) clientContext(ctx context.Context) context.Context {
	return oidc.ClientContext(ctx, s.client)
}

// discover returns the provider's published configuration, fetching it on first use. A failed
// discovery is not remembered, so the next sign-in tries again.
func (s *Service) discover(ctx context.Context, p *provider) (*oidc.Provider, *oidc.IDTokenVerifier, error) {
	s.mu.Lock()
	op, v := p.oidc, p.verifier
	s.mu.Unlock()
	if op != nil {
		return op, v, nil
	}
	op, err := oidc.NewProvider(s.clientContext(ctx), p.cfg.Issuer)
	if err != nil {
		s.log.WarnContext(ctx, "OpenID discovery failed", "provider", p.cfg.ID, "issuer", p.cfg.Issuer, "err", err)
		return nil, nil, &domain.Error{Code: domain.CodeUnavailable, Message: p.cfg.Name + " cannot be reached right now; try again in a moment", Err: err}
	}
	// The key set outlives the request: it is cached and refreshed when a token names an unknown key.
	v = op.VerifierContext(s.clientContext(context.WithoutCancel(ctx)), &oidc.Config{ClientID: p.cfg.ClientID, Now: s.now})
	s.mu.Lock()
	if p.oidc == nil {
		p.oidc, p.verifier = op, v
	}
	op, v = p.oidc, p.verifier
	s.mu.Unlock()
	return op, v, nil
}

func (s *Service) oauth2Config(p *provider, op *oidc.Provider) *oauth2.Config {
	scopes := p.cfg.Scopes
	if scopes == nil {
		scopes = []string{"email", "profile"}
	}
	ep := op.Endpoint()
	if p.cfg.ClientSecret == "" {
		ep.AuthStyle = oauth2.AuthStyleInParams // a public client sends only its client_id
	}
	return &oauth2.Config{
		ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: ep,
		RedirectURL: s.RedirectURI(p.cfg.ID),
		Scopes:      append([]string{oidc.ScopeOpenID}, scopes...),
	}
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// Begin starts an SSO sign-in with a provider: it returns the provider's authorization URL (the
// authorization code flow with PKCE S256, a fresh state and a fresh nonce; OpenID Connect Core 1.0
// section 3.1.2.1, RFC 7636) and the flow cookie to set on the browser, which the callback needs.
// next is where to send the browser once signed in; anything but a same-origin path becomes "/".
func (s *Service) Begin(ctx context.Context, providerID, next string) (authURL string, cookie *http.Cookie, err error) {
	p, err := s.provider(providerID)
	if err != nil {
		return "", nil, err
	}
	op, _, err := s.discover(ctx, p)
	if err != nil {
		return "", nil, err
	}
	state, err := randomToken()
	if err != nil {
		return "", nil, err
	}
	nonce, err := randomToken()
	if err != nil {
		return "", nil, err
	}
	verifier := oauth2.GenerateVerifier()
	value, err := s.sealFlow(flow{
		Provider: p.cfg.ID, State: state, Nonce: nonce, Verifier: verifier,
		Next: SafeNext(next), Expires: s.clock().Add(FlowTTL).Unix(),
	})
	if err != nil {
		return "", nil, fmt.Errorf("sign-in: seal the flow: %w", err)
	}
	authURL = s.oauth2Config(p, op).AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
	return authURL, s.flowCookie(p.cfg.ID, value, int(FlowTTL/time.Second)), nil
}

// idClaims are the claims read from a verified ID token (OpenID Connect Core 1.0 section 5.1).
type idClaims struct {
	Email         string          `json:"email"`
	EmailVerified json.RawMessage `json:"email_verified"`
	Name          string          `json:"name"`
	AuthorizedBy  string          `json:"azp"`
}

// verified reads email_verified, which most providers send as a boolean and some as a string.
func (c idClaims) verified() bool {
	var b bool
	if json.Unmarshal(c.EmailVerified, &b) == nil {
		return b
	}
	var str string
	return json.Unmarshal(c.EmailVerified, &str) == nil && strings.EqualFold(str, "true")
}

func refuse(code domain.Code, cause error, format string, args ...any) error {
	return &domain.Error{Code: code, Message: fmt.Sprintf(format, args...), Err: cause}
}

// Complete finishes an SSO sign-in at the provider's redirect to the callback. It checks the flow
// cookie (this browser started this sign-in, not long ago), the state, exchanges the code with the
// PKCE verifier, verifies the ID token (signature by the provider's published keys, issuer,
// audience, expiry: OpenID Connect Core 1.0 section 3.1.3.7; the nonce against the cookie's), and
// requires a verified email address, in an allowed domain when SIGNIN_ALLOWED_DOMAINS is set. The
// user is then found or created by email. next is the same-origin path to send the browser to.
//
// flowValue is the flow cookie's value ("" when the browser sent none); query is the callback's
// query string. The caller clears the flow cookie whatever the outcome: a flow is used once.
func (s *Service) Complete(ctx context.Context, providerID, flowValue string, query url.Values) (user accounts.User, next string, err error) {
	p, err := s.provider(providerID)
	if err != nil {
		return accounts.User{}, "", err
	}
	get := query.Get
	f, ok := s.openFlow(flowValue)
	switch {
	case !ok || f.Provider != p.cfg.ID:
		return accounts.User{}, "", refuse(domain.CodeInvalid, ErrNoFlow, "this browser did not start a sign-in with %s (or its cookie was lost); start again from the sign-in page", p.cfg.Name)
	case s.clock().Unix() >= f.Expires:
		return accounts.User{}, "", refuse(domain.CodeInvalid, ErrNoFlow, "the sign-in took longer than %d minutes; start again from the sign-in page", int(FlowTTL/time.Minute))
	case subtle.ConstantTimeCompare([]byte(get("state")), []byte(f.State)) != 1:
		return accounts.User{}, "", refuse(domain.CodeInvalid, ErrStateMismatch, "the answer from %s does not belong to the sign-in this browser started; start again from the sign-in page", p.cfg.Name)
	case get("error") != "":
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, ErrProviderRefused, "%s did not sign you in (%s)", p.cfg.Name, cleanCode(get("error")))
	case get("code") == "":
		return accounts.User{}, "", refuse(domain.CodeInvalid, ErrProviderRefused, "%s sent no authorization code", p.cfg.Name)
	}
	op, verifier, err := s.discover(ctx, p)
	if err != nil {
		return accounts.User{}, "", err
	}
	tok, err := s.oauth2Config(p, op).Exchange(s.clientContext(ctx), get("code"), oauth2.VerifierOption(f.Verifier))
	if err != nil {
		s.log.WarnContext(ctx, "sign-in code exchange failed", "provider", p.cfg.ID, "err", exchangeError(err))
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, fmt.Errorf("%w: %s", ErrTokenExchange, exchangeError(err)), "%s refused the sign-in code; start again from the sign-in page", p.cfg.Name)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, ErrIDToken, "%s sent no ID token (is the openid scope allowed for this client?)", p.cfg.Name)
	}
	idt, err := verifier.Verify(s.clientContext(ctx), raw)
	if err != nil {
		s.log.WarnContext(ctx, "sign-in ID token refused", "provider", p.cfg.ID, "err", err)
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, fmt.Errorf("%w: %w", ErrIDToken, err), "the identity %s sent could not be verified; start again from the sign-in page", p.cfg.Name)
	}
	if idt.Nonce == "" || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(f.Nonce)) != 1 {
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, ErrNonceMismatch, "the identity %s sent was not made for this sign-in; start again from the sign-in page", p.cfg.Name)
	}
	var c idClaims
	if err := idt.Claims(&c); err != nil {
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, fmt.Errorf("%w: %w", ErrIDToken, err), "the identity %s sent could not be read", p.cfg.Name)
	}
	// With several audiences the token must name us as its authorized party (OpenID Connect Core 1.0
	// section 3.1.3.7, items 4 and 5).
	if len(idt.Audience) > 1 && c.AuthorizedBy != p.cfg.ClientID {
		return accounts.User{}, "", refuse(domain.CodeUnauthenticated, ErrIDToken, "the identity %s sent was issued to another client", p.cfg.Name)
	}
	if !c.verified() {
		return accounts.User{}, "", refuse(domain.CodeForbidden, ErrEmailNotVerified, "%s has not verified the address %s; verify it there, then sign in again", p.cfg.Name, c.Email)
	}
	email, err := identitydom.NormalizeEmail(c.Email)
	if err != nil {
		return accounts.User{}, "", refuse(domain.CodeForbidden, ErrEmailNotVerified, "%s sent no usable email address", p.cfg.Name)
	}
	if !s.domainAllowed(email) {
		return accounts.User{}, "", refuse(domain.CodeForbidden, ErrDomainNotAllowed, "%s may not sign in to this workbench: only addresses at %s may", email, strings.Join(s.cfg.AllowedDomains, ", "))
	}
	u, created, pos, err := s.cfg.Users.EnsureUser(ctx, email, cleanName(c.Name), md(ctx, "system", s.clock()))
	if err != nil {
		return accounts.User{}, "", fmt.Errorf("sign-in: ensure user: %w", err)
	}
	if err := s.signedIn(ctx, u, md(ctx, "system", s.clock())); err != nil {
		return accounts.User{}, "", fmt.Errorf("sign-in: %w", err)
	}
	if !pos.IsZero() {
		if err := s.cfg.Projections.WaitFor(ctx, pos); err != nil {
			return accounts.User{}, "", fmt.Errorf("sign-in: wait for the read models: %w", err)
		}
	}
	s.log.InfoContext(ctx, "signed in", "provider", p.cfg.ID, "user", u.ID, "created", created)
	return u, f.Next, nil
}

func (s *Service) domainAllowed(email string) bool {
	if len(s.cfg.AllowedDomains) == 0 {
		return true
	}
	_, host, _ := strings.Cut(email, "@")
	return slices.Contains(s.cfg.AllowedDomains, host)
}

// exchangeError describes a failed token request without the response body, which is the
// provider's and may echo what we sent.
func exchangeError(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return "token endpoint error " + cleanCode(re.ErrorCode)
		}
		if re.Response != nil {
			return "token endpoint answered " + re.Response.Status
		}
	}
	return err.Error()
}

// cleanCode keeps an error code printable and short: it is the provider's text.
func cleanCode(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return -1
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// cleanName makes the provider's display name acceptable to identity.CreateUser: valid UTF-8, no
// control characters, at most identity.MaxDisplayNameLen characters.
func cleanName(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > identitydom.MaxDisplayNameLen {
		s = strings.TrimSpace(string([]rune(s)[:identitydom.MaxDisplayNameLen]))
	}
	return s
}
