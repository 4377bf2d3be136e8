// The fake OAuth 2.x / OpenID Connect provider every package's tests share.
//
// OAuthProvider is an authorization server, an OpenID provider and a protected API on one httptest
// server on loopback. It checks each request as the RFCs say and as the test configured it, and
// fails the test (Errorf, naming what was wrong) on a request that breaks the protocol:
//
//   - the authorization endpoint (RFC 6749 section 4.1.1, RFC 7636 section 4.3): response_type code,
//     a known client_id, a redirect_uri registered for it exactly, a state, an S256 code_challenge,
//     the parameters the test expects (scope, prompt, an RFC 8707 resource, ...), and a nonce when the
//     scope asks for an ID token; it answers the redirect with the code and the state, or with
//     access_denied when the test denies consent;
//   - the token endpoint (RFC 6749 sections 2.3.1, 4.1.3 and 6, RFC 7636 section 4.6): a form POST, the
//     client authenticated by exactly the method it was registered with (none, client_secret_basic
//     with form-encoded id and secret, or client_secret_post, never two at once), a single-use code
//     bound to its client, redirect_uri and resource, a code_verifier that hashes to the challenge, and
//     refresh tokens bound to their client and rotated on use unless the test keeps them;
//   - optionally RFC 8414 metadata, RFC 7591 dynamic registration, and OpenID Connect (discovery,
//     JWKS, an RS256 ID token carrying the nonce, userinfo);
//   - a protected API (RFC 6750 section 2.1) whose paths the test sets, answering only live access
//     tokens and recording every bearer token it saw.
//
// Counters (code exchanges, refreshes, registrations, API calls), the tokens issued in order, and
// hooks to make a response fail or lie let a test check what the client did. Access tokens do not
// expire inside the provider: expires_in is what the test announces, and the client under test
// decides when to refresh on its own clock.

package testenv

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"
)

// Client authentication methods at the token endpoint (RFC 7591 section 2, RFC 6749 section 2.3.1).
const (
	AuthNone   = "none"
	AuthBasic  = "client_secret_basic"
	AuthPost   = "client_secret_post"
	AuthSecret = "" // a confidential client that may use client_secret_basic or client_secret_post
)

// OAuthClient is a client the provider knows, added by the test (as an operator does at a provider's
// console) or registered through RFC 7591.
type OAuthClient struct {
	ID, Secret string
	// RedirectURIs are compared exactly (RFC 6749 section 3.1.2.3).
	RedirectURIs []string
	// Auth is the one client authentication method the token endpoint accepts from it: AuthNone (a
	// public client: client_id in the body, no secret anywhere), AuthBasic, AuthPost, or AuthSecret
	// (either of the two secret methods).
	Auth string
}

// OAuthSettings is what the provider does; a test changes it with OAuthProvider.Set, at any time.
type OAuthSettings struct {
	// Issuer is the issuer that metadata, discovery and ID tokens name (the server's URL by default;
	// set another to make them lie).
	Issuer string
	// Metadata serves RFC 8414 metadata at /.well-known/oauth-authorization-server; Registration
	// serves RFC 7591 registration at /register (and names it in the metadata); OpenID serves OpenID
	// Connect discovery, /jwks and /userinfo and adds an ID token to code exchanges whose scope holds
	// openid.
	Metadata, Registration, OpenID bool
	// AuthMethods is token_endpoint_auth_methods_supported in the metadata, and the methods a
	// registration may ask for.
	AuthMethods []string

	// Expect is what the authorization request must carry on top of the protocol's own parameters:
	// each key's value exactly, "" meaning the parameter must be absent (scope, prompt, resource, ...).
	Expect map[string]string
	// ExpectScopes are scopes the authorization request's scope must hold, among any others.
	ExpectScopes []string
	// Deny answers the authorization request with access_denied (the user refused consent).
	Deny bool

	// ExpiresIn is the expires_in, in seconds, of the tokens a code exchange issues (0: the answer has
	// no expires_in, as GitHub OAuth apps answer); RefreshedExpiresIn that of tokens a refresh issues
	// (0: ExpiresIn).
	ExpiresIn, RefreshedExpiresIn int
	// NoRefreshToken makes code exchanges issue no refresh token; KeepRefreshToken makes a refresh
	// answer no new refresh token, the one presented staying valid (no rotation).
	NoRefreshToken, KeepRefreshToken bool

	// API is the protected API: path → the JSON body it answers a live bearer token.
	API map[string]string

	// User is whom ID tokens and userinfo describe.
	User OIDCUser
	// Claims, when set, edits an ID token's claims before it is signed (to make it lie).
	Claims func(claims map[string]any)
	// SignWith, when set, signs ID tokens with this key instead of the published one.
	SignWith *rsa.PrivateKey

	// Callback, when set, edits the query of the redirect back to the client (to make it lie).
	Callback func(q url.Values)
	// Token, when set, sees every token endpoint answer before it is written and may change it: its
	// status and body, or wait. It runs outside the provider's lock and may call its methods.
	Token func(reply *TokenReply)
}

// OIDCUser is the end user an ID token names.
type OIDCUser struct {
	Subject, Email, Name string
	EmailVerified        bool
}

// TokenReply is one answer of the token endpoint, about to be written.
type TokenReply struct {
	Grant    string     // authorization_code or refresh_token
	ClientID string     // the authenticated client
	Form     url.Values // the request's form
	Status   int
	Body     map[string]any
}

// IssuedToken is a token pair the provider issued.
type IssuedToken struct {
	Access, Refresh string // Refresh is "" when none was issued
	ClientID        string
	Grant           string // authorization_code, refresh_token, or "" for one the test added
	At              time.Time
}

type pendingCode struct {
	client, redirect, challenge, resource, scope, nonce string
}

type refreshGrant struct{ client, scope string }

// OAuthProvider is the fake; see the file comment. Its zero value is not usable: NewOAuthProvider.
type OAuthProvider struct {
	t   testing.TB
	srv *httptest.Server

	keyOnce sync.Once
	key     *rsa.PrivateKey

	mu            sync.Mutex
	s             OAuthSettings
	clients       map[string]OAuthClient
	codes         map[string]pendingCode
	access        map[string]string // live access token → client
	refresh       map[string]refreshGrant
	issued        []IssuedToken
	seen          []string
	lastAuthorize url.Values
	lastAuth      string
	exchanges     int
	refreshes     int
	registrations int
	apiCalls      int
}

// NewOAuthProvider starts the provider on loopback; it stops when the test ends. It knows no client
// until the test adds one, serves no metadata, registration or OpenID Connect until the test turns
// them on, and issues tokens announced to live an hour.
func NewOAuthProvider(t testing.TB) *OAuthProvider {
	p := &OAuthProvider{t: t, clients: map[string]OAuthClient{}, codes: map[string]pendingCode{},
		access: map[string]string{}, refresh: map[string]refreshGrant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-authorization-server", p.metadata)
	mux.HandleFunc("/.well-known/openid-configuration", p.discovery)
	mux.HandleFunc("/jwks", p.jwks)
	mux.HandleFunc("/register", p.register)
	mux.HandleFunc("/authorize", p.authorize)
	mux.HandleFunc("/token", p.token)
	mux.HandleFunc("/userinfo", p.userinfo)
	mux.HandleFunc("/", p.api)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	p.s = OAuthSettings{Issuer: p.srv.URL, AuthMethods: []string{AuthNone}, ExpiresIn: 3600,
		User: OIDCUser{Subject: "user-1", Email: "user@example.com", Name: "Test User", EmailVerified: true}}
	return p
}

// Server is the provider's httptest server; URL its base URL; AuthorizeURL, TokenURL and so on its
// endpoints.
func (p *OAuthProvider) Server() *httptest.Server { return p.srv }
func (p *OAuthProvider) URL() string              { return p.srv.URL }
func (p *OAuthProvider) AuthorizeURL() string     { return p.srv.URL + "/authorize" }
func (p *OAuthProvider) TokenURL() string         { return p.srv.URL + "/token" }
func (p *OAuthProvider) UserinfoURL() string      { return p.srv.URL + "/userinfo" }

// Set changes the settings under the provider's lock.
func (p *OAuthProvider) Set(f func(s *OAuthSettings)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(&p.s)
}

// AddClient makes a client known, replacing one of the same id.
func (p *OAuthProvider) AddClient(c OAuthClient) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clients[c.ID] = c
}

// NewConfidentialClient adds a confidential client for redirect, accepting either secret method, with
// a secret holding characters that form-encoding must escape, and returns its id and secret.
func (p *OAuthProvider) NewConfidentialClient(redirect string) (id, secret string) {
	id, secret = "conf-"+random(9), "secret/"+random(12)+"+=&:"
	p.AddClient(OAuthClient{ID: id, Secret: secret, RedirectURIs: []string{redirect}, Auth: AuthSecret})
	return id, secret
}

// AddToken makes a token pair the test chose live for tok.ClientID (tok.Refresh may be ""), as a test
// that seeds a credential, or a Token hook answering with tokens of a provider's own shape, needs. It
// is listed by Issued.
func (p *OAuthProvider) AddToken(tok IssuedToken) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if tok.At.IsZero() {
		tok.At = time.Now()
	}
	p.access[tok.Access] = tok.ClientID
	if tok.Refresh != "" {
		p.refresh[tok.Refresh] = refreshGrant{client: tok.ClientID}
	}
	p.issued = append(p.issued, tok)
}

// Live says whether access is an access token the provider issued and has not revoked.
func (p *OAuthProvider) Live(access string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.access[access]
	return ok
}

// RevokeAccess forgets every access token (the next API call is a 401); RevokeAll forgets the refresh
// tokens too (the next refresh is invalid_grant).
func (p *OAuthProvider) RevokeAccess() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.access)
}

func (p *OAuthProvider) RevokeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.access)
	clear(p.refresh)
}

// Exchanges counts authorization_code requests from an authenticated client, granted or not;
// Refreshes the same of refresh_token requests; Registrations the clients registered through RFC
// 7591; APICalls the requests to the protected API, with a live token or not.
func (p *OAuthProvider) Exchanges() int     { return p.count(&p.exchanges) }
func (p *OAuthProvider) Refreshes() int     { return p.count(&p.refreshes) }
func (p *OAuthProvider) Registrations() int { return p.count(&p.registrations) }
func (p *OAuthProvider) APICalls() int      { return p.count(&p.apiCalls) }

func (p *OAuthProvider) count(n *int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return *n
}

// Issued returns the token pairs issued so far, in order.
func (p *OAuthProvider) Issued() []IssuedToken {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.issued)
}

// SeenTokens returns the bearer tokens the protected API and userinfo received, in order ("" for a
// request that carried none).
func (p *OAuthProvider) SeenTokens() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.seen)
}

// LastAuthorize returns the query of the last authorization request; LastClientAuth the method the
// last token request authenticated its client with (AuthNone, AuthBasic or AuthPost).
func (p *OAuthProvider) LastAuthorize() url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastAuthorize
}

func (p *OAuthProvider) LastClientAuth() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastAuth
}

func (p *OAuthProvider) errorf(format string, args ...any) {
	p.t.Errorf("fake OAuth provider: "+format, args...)
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// oauthError answers an RFC 6749 section 5.2 error.
func oauthError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

func (p *OAuthProvider) method(w http.ResponseWriter, r *http.Request, want string) bool {
	if r.Method != want {
		p.errorf("%s %s, want %s", r.Method, r.URL.Path, want)
		w.Header().Set("Allow", want)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return false
	}
	return true
}

// metadata serves RFC 8414 section 3.
func (p *OAuthProvider) metadata(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	s := p.s
	p.mu.Unlock()
	if !s.Metadata {
		http.NotFound(w, r)
		return
	}
	if !p.method(w, r, http.MethodGet) {
		return
	}
	writeJSON(w, http.StatusOK, p.serverDoc(s))
}

func (p *OAuthProvider) serverDoc(s OAuthSettings) map[string]any {
	doc := map[string]any{"issuer": s.Issuer, "authorization_endpoint": p.AuthorizeURL(), "token_endpoint": p.TokenURL(),
		"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
		"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": s.AuthMethods}
	if s.Registration {
		doc["registration_endpoint"] = p.srv.URL + "/register"
	}
	return doc
}

// register serves RFC 7591 sections 2 and 3.
func (p *OAuthProvider) register(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	on, methods := p.s.Registration, p.s.AuthMethods
	p.mu.Unlock()
	if !on {
		http.NotFound(w, r)
		return
	}
	if !p.method(w, r, http.MethodPost) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		p.errorf("registration: Content-Type %q, want application/json (RFC 7591 section 3.1)", r.Header.Get("Content-Type"))
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not JSON")
		return
	}
	var md struct {
		RedirectURIs  []string `json:"redirect_uris"`
		AuthMethod    *string  `json:"token_endpoint_auth_method"`
		GrantTypes    []string `json:"grant_types"`
		ResponseTypes []string `json:"response_types"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil {
		p.errorf("registration: the body is not client metadata: %v", err)
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not client metadata")
		return
	}
	method := AuthBasic // RFC 7591 section 2: the default when the client names none
	if md.AuthMethod != nil {
		method = *md.AuthMethod
	}
	if !slices.Contains(methods, method) {
		p.errorf("registration: token_endpoint_auth_method %q, the metadata offers %v", method, methods)
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "unsupported token_endpoint_auth_method")
		return
	}
	if len(md.RedirectURIs) == 0 {
		p.errorf("registration: no redirect_uris")
		oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris is required")
		return
	}
	for _, u := range md.RedirectURIs {
		if pu, err := url.Parse(u); err != nil || !pu.IsAbs() || pu.Fragment != "" {
			p.errorf("registration: redirect URI %q is not absolute without a fragment", u)
			oauthError(w, http.StatusBadRequest, "invalid_redirect_uri", "bad redirect URI")
			return
		}
	}
	c := OAuthClient{ID: "client-" + random(9), RedirectURIs: md.RedirectURIs, Auth: method}
	if method != AuthNone {
		c.Secret = "secret-" + random(18)
	}
	p.mu.Lock()
	p.clients[c.ID] = c
	p.registrations++
	p.mu.Unlock()
	out := map[string]any{"client_id": c.ID, "client_id_issued_at": time.Now().Unix(), "redirect_uris": c.RedirectURIs,
		"token_endpoint_auth_method": method, "grant_types": md.GrantTypes, "response_types": md.ResponseTypes}
	if c.Secret != "" {
		out["client_secret"], out["client_secret_expires_at"] = c.Secret, 0
	}
	writeJSON(w, http.StatusCreated, out)
}

// authorize serves RFC 6749 section 4.1.1 with RFC 7636 section 4.3 and OpenID Connect Core 3.1.2.1.
func (p *OAuthProvider) authorize(w http.ResponseWriter, r *http.Request) {
	if !p.method(w, r, http.MethodGet) {
		return
	}
	q := r.URL.Query()
	p.mu.Lock()
	p.lastAuthorize = q
	client, known := p.clients[q.Get("client_id")]
	s := p.s
	p.mu.Unlock()
	redirect := q.Get("redirect_uri")
	// A bad client or redirect is shown to the user, never redirected to (RFC 6749 section 4.1.2.1).
	if !known {
		p.errorf("authorize: unknown client_id %q", q.Get("client_id"))
		http.Error(w, "unknown client", http.StatusBadRequest)
		return
	}
	if !slices.Contains(client.RedirectURIs, redirect) {
		p.errorf("authorize: redirect_uri %q is not one registered for %s (%v)", redirect, client.ID, client.RedirectURIs)
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	var wrong []string
	want := map[string]string{"response_type": "code", "code_challenge_method": "S256"}
	for k, v := range s.Expect {
		want[k] = v
	}
	for k, v := range want {
		if got := q.Get(k); got != v {
			wrong = append(wrong, fmt.Sprintf("%s = %q, want %q", k, got, v))
		}
	}
	if raw, err := base64.RawURLEncoding.DecodeString(q.Get("code_challenge")); err != nil || len(raw) != sha256.Size {
		wrong = append(wrong, fmt.Sprintf("code_challenge %q is not a base64url SHA-256 digest", q.Get("code_challenge")))
	}
	if q.Get("state") == "" {
		wrong = append(wrong, "no state")
	}
	for _, sc := range s.ExpectScopes {
		if !slices.Contains(strings.Fields(q.Get("scope")), sc) {
			wrong = append(wrong, fmt.Sprintf("scope %q lacks %s", q.Get("scope"), sc))
		}
	}
	openid := s.OpenID && slices.Contains(strings.Fields(q.Get("scope")), "openid")
	if openid && q.Get("nonce") == "" {
		wrong = append(wrong, "no nonce in an OpenID Connect request")
	}
	if len(wrong) > 0 {
		slices.Sort(wrong)
		p.errorf("authorize: %s", strings.Join(wrong, "; "))
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	back, _ := url.Parse(redirect)
	bq := back.Query()
	bq.Set("state", q.Get("state"))
	if s.Deny {
		bq.Set("error", "access_denied")
	} else {
		code := "code-" + random(18)
		p.mu.Lock()
		p.codes[code] = pendingCode{client: client.ID, redirect: redirect, challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), scope: q.Get("scope"), nonce: q.Get("nonce")}
		p.mu.Unlock()
		bq.Set("code", code)
	}
	if s.Callback != nil {
		s.Callback(bq)
	}
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// authenticate finds the client of a token request by RFC 6749 section 2.3.1: a confidential client
// by HTTP Basic (its id and secret form-encoded) or by client_id and client_secret in the body, as it
// was registered and never both; a public client by its client_id alone.
func (p *OAuthProvider) authenticate(w http.ResponseWriter, r *http.Request) (OAuthClient, bool) {
	f := r.PostForm
	user, pass, basic := r.BasicAuth()
	var id, secret, method string
	switch {
	case basic:
		var err1, err2 error
		id, err1 = url.QueryUnescape(user)
		secret, err2 = url.QueryUnescape(pass)
		if err1 != nil || err2 != nil {
			p.errorf("token: HTTP Basic credentials are not form-encoded")
			oauthError(w, http.StatusBadRequest, "invalid_request", "bad Basic credentials")
			return OAuthClient{}, false
		}
		method = AuthBasic
		if f.Has("client_secret") {
			p.errorf("token: client %q authenticated twice (HTTP Basic and client_secret in the body)", id)
			oauthError(w, http.StatusBadRequest, "invalid_request", "more than one client authentication")
			return OAuthClient{}, false
		}
		if f.Has("client_id") && f.Get("client_id") != id {
			p.errorf("token: client_id %q in the body, %q in HTTP Basic", f.Get("client_id"), id)
			oauthError(w, http.StatusBadRequest, "invalid_request", "two client ids")
			return OAuthClient{}, false
		}
	case f.Has("client_secret"):
		id, secret, method = f.Get("client_id"), f.Get("client_secret"), AuthPost
	default:
		id, method = f.Get("client_id"), AuthNone
	}
	p.mu.Lock()
	c, known := p.clients[id]
	p.mu.Unlock()
	fail := func(why string) (OAuthClient, bool) {
		p.errorf("token: client %q: %s", id, why)
		if basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="token"`)
		}
		oauthError(w, http.StatusUnauthorized, "invalid_client", why)
		return OAuthClient{}, false
	}
	switch {
	case !known:
		return fail("unknown client")
	case c.Auth == AuthNone && method != AuthNone:
		return fail("a public client sent a secret (" + method + ")")
	case c.Auth != AuthNone && method == AuthNone:
		return fail("a confidential client did not authenticate")
	case c.Auth != AuthSecret && c.Auth != method:
		return fail("authenticated by " + method + ", registered for " + c.Auth)
	case method != AuthNone && secret != c.Secret:
		return fail("wrong client secret")
	}
	p.mu.Lock()
	p.lastAuth = method
	p.mu.Unlock()
	return c, true
}

// token serves RFC 6749 sections 4.1.3, 5 and 6 with RFC 7636 section 4.6 and RFC 8707.
func (p *OAuthProvider) token(w http.ResponseWriter, r *http.Request) {
	if !p.method(w, r, http.MethodPost) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		p.errorf("token: Content-Type %q, want application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
		oauthError(w, http.StatusBadRequest, "invalid_request", "not a form")
		return
	}
	if err := r.ParseForm(); err != nil {
		p.errorf("token: the form does not parse: %v", err)
		oauthError(w, http.StatusBadRequest, "invalid_request", "bad form")
		return
	}
	if len(r.URL.Query()) > 0 {
		p.errorf("token: parameters in the URL query %v, want them in the body", r.URL.Query())
	}
	client, ok := p.authenticate(w, r)
	if !ok {
		return
	}
	f := r.PostForm
	reply := &TokenReply{Grant: f.Get("grant_type"), ClientID: client.ID, Form: f, Status: http.StatusOK}
	switch reply.Grant {
	case "authorization_code":
		reply.Body = p.exchange(client, f)
	case "refresh_token":
		reply.Body = p.refreshGrant(client, f)
	default:
		p.errorf("token: grant_type %q", reply.Grant)
		reply.Body = map[string]any{"error": "unsupported_grant_type"}
	}
	if _, failed := reply.Body["error"]; failed {
		reply.Status = http.StatusBadRequest
	}
	p.mu.Lock()
	hook := p.s.Token
	p.mu.Unlock()
	if hook != nil {
		hook(reply)
	}
	writeJSON(w, reply.Status, reply.Body)
}

func (p *OAuthProvider) exchange(client OAuthClient, f url.Values) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.exchanges++
	c, ok := p.codes[f.Get("code")]
	delete(p.codes, f.Get("code")) // single use (RFC 6749 section 4.1.2)
	sum := sha256.Sum256([]byte(f.Get("code_verifier")))
	switch {
	case !ok:
		return map[string]any{"error": "invalid_grant", "error_description": "unknown or used code"}
	case c.client != client.ID:
		p.errorf("token: the code was issued to %q, redeemed by %q", c.client, client.ID)
		return map[string]any{"error": "invalid_grant"}
	case f.Get("redirect_uri") != c.redirect:
		p.errorf("token: redirect_uri %q, want exactly %q (RFC 6749 section 4.1.3)", f.Get("redirect_uri"), c.redirect)
		return map[string]any{"error": "invalid_grant"}
	case f.Get("resource") != c.resource:
		p.errorf("token: resource %q, the authorization request had %q (RFC 8707)", f.Get("resource"), c.resource)
		return map[string]any{"error": "invalid_target"}
	case !validVerifier(f.Get("code_verifier")):
		p.errorf("token: code_verifier %q breaks RFC 7636 section 4.1", f.Get("code_verifier"))
		return map[string]any{"error": "invalid_request"}
	case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
		p.errorf("token: the code_verifier does not hash (S256) to the code_challenge")
		return map[string]any{"error": "invalid_grant"}
	}
	tok := p.issueLocked(client.ID, "authorization_code", c.scope, !p.s.NoRefreshToken)
	body := p.tokenBody(tok, p.s.ExpiresIn, c.scope)
	if p.s.OpenID && slices.Contains(strings.Fields(c.scope), "openid") {
		now := time.Now()
		claims := map[string]any{"iss": p.s.Issuer, "sub": p.s.User.Subject, "aud": client.ID, "exp": now.Add(time.Hour).Unix(),
			"iat": now.Unix(), "email": p.s.User.Email, "email_verified": p.s.User.EmailVerified, "name": p.s.User.Name}
		if c.nonce != "" {
			claims["nonce"] = c.nonce
		}
		if p.s.Claims != nil {
			p.s.Claims(claims)
		}
		body["id_token"] = p.sign(claims, p.s.SignWith)
	}
	return body
}

func (p *OAuthProvider) refreshGrant(client OAuthClient, f url.Values) map[string]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refreshes++
	rt := f.Get("refresh_token")
	g, ok := p.refresh[rt]
	switch {
	case !ok:
		return map[string]any{"error": "invalid_grant", "error_description": "unknown or revoked refresh token"}
	case g.client != client.ID:
		p.errorf("token: a refresh token of %q presented by %q", g.client, client.ID)
		return map[string]any{"error": "invalid_grant"}
	}
	rotate := !p.s.KeepRefreshToken
	if rotate {
		delete(p.refresh, rt)
	}
	tok := p.issueLocked(client.ID, "refresh_token", g.scope, rotate)
	expires := p.s.RefreshedExpiresIn
	if expires == 0 {
		expires = p.s.ExpiresIn
	}
	return p.tokenBody(tok, expires, g.scope)
}

// validVerifier says whether v is 43 to 128 unreserved characters (RFC 7636 section 4.1).
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range v {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.ContainsRune("-._~", c)) {
			return false
		}
	}
	return true
}

func (p *OAuthProvider) issueLocked(client, grant, scope string, withRefresh bool) IssuedToken {
	tok := IssuedToken{Access: fmt.Sprintf("at-%d-%s", len(p.issued)+1, random(12)), ClientID: client, Grant: grant, At: time.Now()}
	p.access[tok.Access] = client
	if withRefresh {
		tok.Refresh = "rt-" + random(18)
		p.refresh[tok.Refresh] = refreshGrant{client: client, scope: scope}
	}
	p.issued = append(p.issued, tok)
	return tok
}

// tokenBody is RFC 6749 section 5.1's answer.
func (p *OAuthProvider) tokenBody(tok IssuedToken, expiresIn int, scope string) map[string]any {
	body := map[string]any{"access_token": tok.Access, "token_type": "Bearer"}
	if expiresIn > 0 {
		body["expires_in"] = expiresIn
	}
	if tok.Refresh != "" {
		body["refresh_token"] = tok.Refresh
	}
	if scope != "" {
		body["scope"] = scope
	}
	return body
}

// bearer reads an RFC 6750 section 2.1 token, records it, and says whether it is live.
func (p *OAuthProvider) bearer(r *http.Request) (string, bool) {
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
		tok = ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen = append(p.seen, tok)
	_, live := p.access[tok]
	return tok, live && tok != ""
}

func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token"})
}

// api serves the protected API's paths.
func (p *OAuthProvider) api(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	body, ok := p.s.API[r.URL.Path]
	if ok {
		p.apiCalls++
	}
	p.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	if _, live := p.bearer(r); !live {
		unauthorized(w)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

// signingKey is the published key, made on first use (an RSA key takes a while to generate).
func (p *OAuthProvider) signingKey() *rsa.PrivateKey {
	p.keyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(fmt.Sprintf("fake OAuth provider: RSA key: %v", err))
		}
		p.key = k
	})
	return p.key
}

const keyID = "k1"

// sign makes a compact RS256 JWS of claims (RFC 7515, RFC 7518 section 3.3).
func (p *OAuthProvider) sign(claims map[string]any, with *rsa.PrivateKey) string {
	if with == nil {
		with = p.signingKey()
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: with, KeyID: keyID}},
		(&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		p.errorf("ID token signer: %v", err)
		return ""
	}
	payload, _ := json.Marshal(claims)
	jws, err := signer.Sign(payload)
	if err != nil {
		p.errorf("ID token: %v", err)
		return ""
	}
	out, _ := jws.CompactSerialize()
	return out
}

// discovery serves OpenID Connect Discovery 1.0 section 3.
func (p *OAuthProvider) discovery(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	s := p.s
	p.mu.Unlock()
	if !s.OpenID {
		http.NotFound(w, r)
		return
	}
	if !p.method(w, r, http.MethodGet) {
		return
	}
	doc := p.serverDoc(s)
	doc["jwks_uri"], doc["userinfo_endpoint"] = p.srv.URL+"/jwks", p.UserinfoURL()
	doc["subject_types_supported"], doc["id_token_signing_alg_values_supported"] = []string{"public"}, []string{"RS256"}
	doc["scopes_supported"] = []string{"openid", "email", "profile"}
	writeJSON(w, http.StatusOK, doc)
}

// jwks serves the published key as an RFC 7517 key set.
func (p *OAuthProvider) jwks(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	on := p.s.OpenID
	p.mu.Unlock()
	if !on {
		http.NotFound(w, r)
		return
	}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &p.signingKey().PublicKey, KeyID: keyID, Algorithm: "RS256", Use: "sig"}}}
	writeJSON(w, http.StatusOK, set)
}

// userinfo serves OpenID Connect Core section 5.3 to a live bearer token.
func (p *OAuthProvider) userinfo(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	s := p.s
	p.mu.Unlock()
	if !s.OpenID {
		http.NotFound(w, r)
		return
	}
	if _, live := p.bearer(r); !live {
		unauthorized(w)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sub": s.User.Subject, "email": s.User.Email, "email_verified": s.User.EmailVerified, "name": s.User.Name})
}
