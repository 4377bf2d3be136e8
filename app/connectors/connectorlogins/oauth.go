package connectorlogins

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/internal/signed"
	"github.com/workbench/workbench/plugins/connector"
)

// CallbackPath is where every OAuth sign-in of a connector comes back, under the public URL.
const CallbackPath = "/api/mcp/oauth/callback"

// OAuth limits.
const (
	// StateTTL is how long a sign-in's signed state is accepted.
	StateTTL = 15 * time.Minute
	// RefreshBefore is how long before its expiry an access token is refreshed.
	RefreshBefore = time.Minute
	// maxOAuthDoc caps a discovery, registration or token reply.
	maxOAuthDoc = 256 << 10
)

// The credential fields of an OAuth login (sealed like a token login's: "token" travels to the
// endpoint as a bearer token).
const (
	credAccess   = connectorcore.CredAccess
	credRefresh  = "refresh_token"
	credExpires  = "expires_at"
	credClient   = "client_id"
	credTokenURL = "token_endpoint"
	credResource = "resource"
)

// ErrOAuthUnsupported says a server offers no client registration and none is configured: its
// Connect answers 422 with setup_state unsupported.
var ErrOAuthUnsupported = errors.New("oauth: no registration endpoint and no configured client")

// oauthState is what the signed state of a sign-in carries.
type oauthState struct {
	Login  uuid.UUID `json:"l"`
	Server string    `json:"s"`
	Scope  string    `json:"o"`
	Owner  uuid.UUID `json:"i"`
	User   uuid.UUID `json:"u"`
	Nonce  string    `json:"n"`
	// Account is the label of the account signed in to; empty for the default account (and in every
	// state signed before labels existed).
	Account string `json:"a,omitempty"`
}

// stream is the login stream the sign-in belongs to.
func (st oauthState) stream() string {
	return login.StreamName(st.Server, login.Owner{Scope: login.Scope(st.Scope), ID: st.Owner}, st.Account)
}

// pendingOAuth is the sealed half of a sign-in the pending login holds.
type pendingOAuth struct {
	Verifier    string `json:"verifier"`
	ClientID    string `json:"client_id"`
	TokenURL    string `json:"token_endpoint"`
	Resource    string `json:"resource"`
	RedirectURI string `json:"redirect_uri"`
	// Strategy is the connector's (empty: dynamic, as a sign-in started before strategies were).
	Strategy string `json:"strategy,omitempty"`
	// ClientKey and TokenAuth are a configured client's origin and token authentication
	// (strategy.go); its secret is read again at the callback, never stored.
	ClientKey string `json:"client_key,omitempty"`
	TokenAuth string `json:"token_auth,omitempty"`
}

// authServer is what discovery found.
type authServer struct {
	Issuer           string
	AuthorizeURL     string
	TokenURL         string
	RegisterURL      string
	Resource         string
	ScopesOffered    []string
	TokenAuthMethods []string
}

func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// stateSealer is the signer of sign-in states.
func (s *Service) stateSealer() (*signed.Sealer[oauthState], error) {
	return signed.New[oauthState](s.Opts.OAuthStateKey, "mcp-oauth-state", &signed.Options{Now: s.Opts.Now})
}

// RedirectURI is the callback of a sign-in: the public URL's, else the request's own base.
func (s *Service) RedirectURI(requestBase string) string {
	base := s.Opts.PublicURL
	if base == "" {
		base = requestBase
	}
	return strings.TrimRight(base, "/") + CallbackPath
}

// connectOAuth starts an OAuth sign-in: the strategy's plan (strategy.go: for dynamic, discovery and
// registration when no client is stored for this redirect URI), the pending login holding the PKCE
// verifier, and the authorization URL.
func (s *Service) connectOAuth(ctx context.Context, user uuid.UUID, req ConnectRequest, srvID string, m *connector.Manifest) (ConnectResult, error) {
	var res ConnectResult
	redirect := s.RedirectURI(req.RequestBase)
	if _, err := url.Parse(redirect); err != nil || !strings.HasPrefix(redirect, "http") {
		return res, domain.Errorf(domain.CodeInvalid, "the callback address %q is not an absolute URL", redirect)
	}
	stream := login.StreamName(srvID, req.Owner, req.Account)
	cur, err := s.loadLogin(ctx, stream)
	if err != nil {
		return res, err
	}
	if cur.Exists() && cur.Status == login.StatusConnected {
		return res, domain.Errorf(domain.CodeConflict, "a connected login to %s (account %s) exists at this %s; remove it first", srvID, cur.Label(), req.Owner.Scope)
	}
	plan, err := s.planSignIn(ctx, user, srvID, m, redirect)
	if err != nil {
		return res, err
	}
	loginID := cur.LoginID
	if loginID == uuid.Nil {
		loginID = uuid.Must(uuid.NewV7())
	}
	verifier := randomString(48)
	pending, err := json.Marshal(pendingOAuth{Verifier: verifier, ClientID: plan.Client.ID, TokenURL: plan.TokenURL, Resource: plan.Resource, RedirectURI: redirect,
		Strategy: plan.Strategy, ClientKey: plan.Client.Key, TokenAuth: plan.Client.Auth})
	if err != nil {
		return res, err
	}
	sealed, err := s.Opts.Vault.Seal(ctx, connectorcore.CredentialSubject(loginID), connectorcore.CredentialPurpose, pending)
	if err != nil {
		return res, err
	}
	nonce := randomString(18)
	sealer, err := s.stateSealer()
	if err != nil {
		return res, err
	}
	state, err := sealer.Seal(oauthState{Login: loginID, Server: srvID, Scope: string(req.Owner.Scope), Owner: req.Owner.ID, User: user, Nonce: nonce, Account: EventLabel(req.Account)}, s.Opts.Now().Add(StateTTL))
	if err != nil {
		return res, err
	}
	if _, err := s.executeLogin(ctx, user.String(), stream, login.StartOAuth{NewLoginID: loginID, ServerID: srvID, Owner: req.Owner, Account: req.Account, Pending: sealed, Nonce: nonce, At: s.Opts.Now()}); err != nil {
		return res, err
	}
	if plan.Strategy == StrategyGitHubApp {
		res.AuthorizationURL = plan.installURL(state)
	} else {
		res.AuthorizationURL = plan.authorizationURL(redirect, state, verifier)
	}
	au, _ := url.Parse(res.AuthorizationURL)
	res.AuthorizationHost = au.Host
	res.Outcome = cur.StartAnew()
	res.Login, err = s.LoginView(ctx, loginID)
	return res, err
}

// oauthDo sends one request of the OAuth flow through the address check and reads its reply, capped;
// edit adds to the request (a client's authentication, a provider's headers).
func (s *Service) oauthDo(ctx context.Context, method, u string, body io.Reader, contentType string, edit ...func(*http.Request)) (*http.Response, []byte, error) {
	if err := mcpclient.CheckURL(ctx, u, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
		return nil, nil, domain.Errorf(domain.CodeUnprocessable, "oauth: %s", err.Error())
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, nil, domain.Errorf(domain.CodeUnprocessable, "oauth: %q: %v", u, err)
	}
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for _, e := range edit {
		e(req)
	}
	// A metadata, registration or token request never follows a redirect: the URL that passed the
	// checks is the one that answers.
	client := s.Opts.Pool.HTTPClient()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(err, mcpclient.ErrAddress) {
			return nil, nil, domain.Errorf(domain.CodeUnprocessable, "oauth: %s", err.Error())
		}
		return nil, nil, domain.Errorf(domain.CodeUpstream, "oauth: %s did not answer", u)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxOAuthDoc+1))
	if err != nil || len(raw) > maxOAuthDoc {
		return nil, nil, domain.Errorf(domain.CodeUpstream, "oauth: the reply of %s is unreadable or over %d bytes", u, maxOAuthDoc)
	}
	return resp, raw, nil
}

func (s *Service) getDoc(ctx context.Context, u string, v any) (bool, error) {
	resp, raw, err := s.oauthDo(ctx, http.MethodGet, u, nil, "")
	if err != nil {
		return false, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return false, nil
	}
	if resp.StatusCode != http.StatusOK {
		return false, domain.Errorf(domain.CodeUpstream, "oauth: %s answered %d", u, resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return false, domain.Errorf(domain.CodeUpstream, "oauth: %s is not JSON", u)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, domain.Errorf(domain.CodeUpstream, "oauth: %s is not a metadata document: %v", u, err)
	}
	return true, nil
}

// wellKnown inserts a well-known suffix between the host and the path of u (RFC 8414 section 3.1,
// RFC 9728 section 3.1).
func wellKnown(u *url.URL, suffix string) string {
	p := strings.TrimRight(u.EscapedPath(), "/")
	return u.Scheme + "://" + u.Host + "/.well-known/" + suffix + p
}

// resourceMetadataParam reads resource_metadata from a WWW-Authenticate Bearer challenge.
func resourceMetadataParam(h []string) string {
	for _, v := range h {
		i := strings.Index(v, "resource_metadata=")
		if i < 0 {
			continue
		}
		rest := v[i+len("resource_metadata="):]
		if strings.HasPrefix(rest, `"`) {
			if j := strings.Index(rest[1:], `"`); j >= 0 {
				return rest[1 : j+1]
			}
			continue
		}
		if j := strings.IndexAny(rest, ", "); j >= 0 {
			rest = rest[:j]
		}
		return rest
	}
	return ""
}

// discover finds the endpoint's protected-resource metadata (RFC 9728: the 401's resource_metadata,
// else the well-known path) and its authorization server's metadata (RFC 8414), refusing documents
// whose resource or issuer do not match what was asked.
func (s *Service) discover(ctx context.Context, endpointURL string) (authServer, error) {
	var as authServer
	eu, err := url.Parse(endpointURL)
	if err != nil || eu.Host == "" {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the endpoint %q is not an absolute URL", endpointURL)
	}
	// The unauthenticated request's challenge names the metadata.
	var prmURL string
	resp, _, err := s.oauthDo(ctx, http.MethodPost, endpointURL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"workbench","version":"1"}}}`), "application/json")
	if err != nil {
		return as, err
	}
	if resp.StatusCode == http.StatusUnauthorized {
		prmURL = resourceMetadataParam(resp.Header.Values("WWW-Authenticate"))
	}
	var prm struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	candidates := []string{wellKnown(eu, "oauth-protected-resource"), eu.Scheme + "://" + eu.Host + "/.well-known/oauth-protected-resource"}
	if prmURL != "" {
		candidates = []string{prmURL}
	}
	found := false
	for _, c := range slices.Compact(candidates) {
		if found, err = s.getDoc(ctx, c, &prm); err != nil {
			return as, err
		} else if found {
			break
		}
	}
	if !found {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: %s publishes no protected-resource metadata", eu.Host)
	}
	if prm.Resource != endpointURL {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the protected-resource metadata names the resource %q, not %q; refused", prm.Resource, endpointURL)
	}
	if len(prm.AuthorizationServers) == 0 {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the protected-resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	iu, err := url.Parse(issuer)
	if err != nil || iu.Host == "" || iu.RawQuery != "" || iu.Fragment != "" {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the authorization server %q is not an issuer URL", issuer)
	}
	var md struct {
		Issuer                string   `json:"issuer"`
		AuthorizationEndpoint string   `json:"authorization_endpoint"`
		TokenEndpoint         string   `json:"token_endpoint"`
		RegistrationEndpoint  string   `json:"registration_endpoint"`
		CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
		TokenAuthMethods      []string `json:"token_endpoint_auth_methods_supported"`
	}
	found = false
	for _, c := range slices.Compact([]string{wellKnown(iu, "oauth-authorization-server"), wellKnown(iu, "openid-configuration")}) {
		if found, err = s.getDoc(ctx, c, &md); err != nil {
			return as, err
		} else if found {
			break
		}
	}
	if !found {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: %s publishes no authorization-server metadata", iu.Host)
	}
	if md.Issuer != issuer {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the authorization-server metadata names the issuer %q, not %q; refused", md.Issuer, issuer)
	}
	if md.AuthorizationEndpoint == "" || md.TokenEndpoint == "" {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the authorization server names no authorization or token endpoint")
	}
	if !slices.Contains(md.CodeChallengeMethods, "S256") {
		return as, domain.Errorf(domain.CodeUnprocessable, "oauth: the authorization server does not offer PKCE with S256")
	}
	for _, u := range []string{md.AuthorizationEndpoint, md.TokenEndpoint, md.RegistrationEndpoint} {
		if u == "" {
			continue
		}
		if err := mcpclient.CheckURL(ctx, u, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return as, domain.Errorf(domain.CodeUnprocessable, "oauth: %s", err.Error())
		}
	}
	return authServer{Issuer: md.Issuer, AuthorizeURL: md.AuthorizationEndpoint, TokenURL: md.TokenEndpoint, RegisterURL: md.RegistrationEndpoint,
		Resource: prm.Resource, ScopesOffered: prm.ScopesSupported, TokenAuthMethods: md.TokenAuthMethods}, nil
}

// clientFor is the connector's client at this issuer for this redirect URI, registered (RFC 7591)
// and stored on the connector when there is none.
func (s *Service) clientFor(ctx context.Context, user uuid.UUID, srvID string, as authServer, redirect string) (string, error) {
	if id, err := s.catalog.Client(ctx, srvID, as.Issuer, redirect); err != nil || id != "" {
		return id, err
	}
	if as.RegisterURL == "" {
		return "", &domain.Error{Code: domain.CodeUnprocessable, Message: "the server offers no client registration and no client is configured for it", Err: ErrOAuthUnsupported}
	}
	body, _ := json.Marshal(map[string]any{
		"client_name": "Workbench", "redirect_uris": []string{redirect}, "grant_types": []string{"authorization_code", "refresh_token"},
		"response_types": []string{"code"}, "token_endpoint_auth_method": "none",
	})
	resp, raw, err := s.oauthDo(ctx, http.MethodPost, as.RegisterURL, bytes.NewReader(body), "application/json")
	if err != nil {
		return "", err
	}
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
		return "", domain.Errorf(domain.CodeUpstream, "oauth: the client registration answered %d", resp.StatusCode)
	}
	if err := json.Unmarshal(raw, &reg); err != nil || strings.TrimSpace(reg.ClientID) == "" {
		return "", domain.Errorf(domain.CodeUpstream, "oauth: the client registration answered no client_id")
	}
	// Another request may have stored its client first: the stored one is the connector's.
	return s.catalog.RegisterClient(ctx, user.String(), connectordom.ClientRegistered{ID: srvID, Issuer: as.Issuer, RedirectURI: redirect, ClientID: reg.ClientID, At: s.Opts.Now()})
}

// CallbackResult is what a callback did.
type CallbackResult struct {
	LoginID uuid.UUID
	// Denied is set when the operator or the provider refused the sign-in.
	Denied       bool
	ListingError string
}

// Callback is what the authorization server (or GitHub, after an installation) sent the operator's
// browser back with.
type Callback struct {
	State string
	Code  string
	// Error is the authorization server's error parameter (access_denied, ...).
	Error string
	// InstallationID and SetupAction come back from a GitHub App installation (githubapp.go).
	InstallationID string
	SetupAction    string
}

// CompleteOAuth handles the callback of an authorization code sign-in (CompleteSignIn with a code or
// an error).
func (s *Service) CompleteOAuth(ctx context.Context, user uuid.UUID, state, code, denied string) (CallbackResult, error) {
	return s.CompleteSignIn(ctx, user, Callback{State: state, Code: code, Error: denied})
}

// CompleteSignIn handles the callback: the signed state bound to the user who started the sign-in;
// an error parameter closes it (a new login is removed, a disconnected one stays disconnected); a
// code is exchanged with the verifier, the tokens stored sealed, the login connected, the tools listed.
// A GitHub App installation completes in completeInstallation.
func (s *Service) CompleteSignIn(ctx context.Context, user uuid.UUID, cb Callback) (CallbackResult, error) {
	var res CallbackResult
	state, code, denied := cb.State, cb.Code, cb.Error
	sealer, err := s.stateSealer()
	if err != nil {
		return res, err
	}
	st, _, err := sealer.Open(state)
	if err != nil {
		return res, domain.Errorf(domain.CodeInvalid, "the sign-in state is not valid or has expired; connect again")
	}
	if st.User != user {
		return res, domain.Errorf(domain.CodeForbidden, "this sign-in was started by another user")
	}
	res.LoginID = st.Login
	stream := st.stream()
	cur, err := s.loadLogin(ctx, stream)
	if err != nil {
		return res, err
	}
	abandon := func(reason string) error {
		_, err := s.executeLogin(ctx, user.String(), stream, login.AbandonOAuth{LoginID: st.Login, Nonce: st.Nonce, Reason: reason, At: s.Opts.Now()})
		return err
	}
	if denied != "" || (code == "" && cb.InstallationID == "" && cb.SetupAction == "") {
		res.Denied = true
		return res, abandon("the sign-in was denied")
	}
	if cur.LoginID != st.Login || cur.OAuthNonce != st.Nonce {
		return res, domain.Errorf(domain.CodeConflict, "this sign-in is no longer the login's open one; connect again")
	}
	raw, err := s.Opts.Vault.Open(ctx, cur.OAuthPending, connectorcore.CredentialPurpose)
	if err != nil {
		return res, fmt.Errorf("open the pending sign-in: %w", err)
	}
	var p pendingOAuth
	if err := json.Unmarshal(raw, &p); err != nil {
		return res, fmt.Errorf("read the pending sign-in: %w", err)
	}
	_, m, err := s.ServerFor(ctx, st.Server)
	if err != nil {
		return res, err
	}
	if p.Strategy == StrategyGitHubApp {
		return s.completeInstallation(ctx, user, st, cur, p, m, cb, abandon)
	}
	if code == "" {
		res.Denied = true
		return res, abandon("the sign-in was denied")
	}
	client, err := s.clientOf(ctx, m, p.ClientID, p.ClientKey, p.TokenAuth)
	if err != nil {
		if aerr := abandon("the OAuth client cannot be read"); aerr != nil {
			s.Log.ErrorContext(ctx, "close a failed sign-in", "login", st.Login, "err", aerr)
		}
		res.Denied = true
		return res, err
	}
	tok, err := s.tokenRequest(ctx, p.TokenURL, withoutEmpty(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {p.RedirectURI},
		"code_verifier": {p.Verifier}, "resource": {p.Resource}}), client)
	if err != nil {
		if aerr := abandon("the token request failed"); aerr != nil {
			s.Log.ErrorContext(ctx, "close a failed sign-in", "login", st.Login, "err", aerr)
		}
		res.Denied = true
		return res, err
	}
	return s.finishSignIn(ctx, user, st, cur, tok.creds(p, s.Opts.Now()), "")
}

// finishSignIn stores a successful sign-in's credentials sealed, connects the login (pending while a
// required setting is missing), and lists its tools.
func (s *Service) finishSignIn(ctx context.Context, user uuid.UUID, st oauthState, cur login.State, creds Creds, hint string) (CallbackResult, error) {
	res := CallbackResult{LoginID: st.Login}
	stream := st.stream()
	srv, m, err := s.ServerFor(ctx, st.Server)
	if err != nil {
		return res, err
	}
	var needs []string
	if len(m.SettingsSchema) > 0 {
		schema, err := connector.ParseSettingsSchema(m.SettingsSchema)
		if err != nil {
			return res, err
		}
		settings := cur.Settings
		if settings == nil {
			settings = json.RawMessage("{}")
		}
		needs = schema.Missing(settings)
	}
	sealed, err := s.Seal(ctx, st.Login, creds)
	if err != nil {
		return res, err
	}
	r, err := s.executeLogin(ctx, user.String(), stream, login.CompleteOAuth{LoginID: st.Login, Nonce: st.Nonce, Credential: sealed, NeedsSettings: needs, AccountHint: hint, At: s.Opts.Now()})
	if err != nil {
		return res, err
	}
	s.Opts.Pool.Drop(st.Login)
	if r.State.Status == login.StatusConnected {
		if err := s.List(ctx, user.String(), srv, m, r.State, creds); err != nil {
			res.ListingError = providerError("list tools", err, newRedactor(creds)).(*domain.Error).Message
			s.Log.WarnContext(ctx, "first listing after sign-in failed", "login", st.Login, "server", srv.ID, "err", res.ListingError)
		}
	}
	return res, nil
}

// tokenReply is a token endpoint's success (RFC 6749 section 5.1).
type tokenReply struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	RefreshToken string `json:"refresh_token"`
	ExpiresIn    int64  `json:"expires_in"`
}

func (t tokenReply) creds(p pendingOAuth, now time.Time) Creds {
	c := Creds{credAccess: t.AccessToken, credClient: p.ClientID, credTokenURL: p.TokenURL, credResource: p.Resource}
	if p.ClientKey != "" {
		c[credClientKey], c[credTokenAuth] = p.ClientKey, p.TokenAuth
	}
	if t.RefreshToken != "" {
		c[credRefresh] = t.RefreshToken
	}
	if t.ExpiresIn > 0 {
		c[credExpires] = now.Add(time.Duration(t.ExpiresIn) * time.Second).UTC().Format(time.RFC3339)
	}
	return c
}

// errInvalidGrant is a refresh the authorization server refused for good.
var errInvalidGrant = errors.New("oauth: invalid_grant")

// withoutEmpty drops the parameters with an empty value (a resource a provider does not take).
func withoutEmpty(v url.Values) url.Values {
	for k, vs := range v {
		if len(vs) == 0 || vs[0] == "" {
			delete(v, k)
		}
	}
	return v
}

// tokenRequest posts a token request (RFC 6749 section 4.1.3 and 6), the client authenticated as it
// authenticates, and reads the reply.
func (s *Service) tokenRequest(ctx context.Context, tokenURL string, form url.Values, client oauthClient) (tokenReply, error) {
	var t tokenReply
	auth := client.authenticate(form)
	resp, raw, err := s.oauthDo(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded", auth)
	if err != nil {
		return t, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(raw, &e)
		if e.Error == "invalid_grant" {
			return t, &domain.Error{Code: domain.CodeUnprocessable, Message: "the authorization server refused the grant; sign in again", Err: errInvalidGrant}
		}
		return t, domain.Errorf(domain.CodeUpstream, "oauth: the token endpoint answered %d %s", resp.StatusCode, cleanOAuthCode(e.Error))
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.AccessToken == "" || !strings.EqualFold(t.TokenType, "bearer") {
		return tokenReply{}, domain.Errorf(domain.CodeUpstream, "oauth: the token endpoint answered no bearer access token")
	}
	return t, nil
}

func cleanOAuthCode(s string) string {
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	if len(s) > 64 {
		return ""
	}
	return s
}

// Fresh refreshes an OAuth login's tokens when they expire within RefreshBefore, or always with
// force (a 401 from the remote); invalid_grant marks the login disconnected. Other logins pass.
func (s *Service) Fresh(ctx context.Context, l login.State, m *connector.Manifest, creds Creds, force bool) (Creds, error) {
	if strategyOf(m) == StrategyGitHubApp {
		return s.installationCreds(ctx, l, creds, force)
	}
	if !isOAuth(m) || creds[credTokenURL] == "" {
		return creds, nil
	}
	if !force {
		exp, err := time.Parse(time.RFC3339, creds[credExpires])
		if err != nil || s.Opts.Now().Add(RefreshBefore).Before(exp) {
			return creds, nil
		}
	}
	mu := s.refreshLock(l.LoginID)
	mu.Lock()
	defer mu.Unlock()
	// Another call may have refreshed while this one waited: read the stored tokens again.
	cur, err := s.loadLogin(ctx, l.Stream())
	if err != nil {
		return nil, err
	}
	if cur.LoginID != l.LoginID || cur.Status == login.StatusDisconnected {
		return nil, domain.Errorf(domain.CodeUnprocessable, "the login is disconnected; sign in again")
	}
	if stored, err := s.Open(ctx, cur.Credential); err == nil && stored[credAccess] != creds[credAccess] {
		return stored, nil
	}
	if creds[credRefresh] == "" {
		return nil, s.disconnect(ctx, l, "the access token expired and there is no refresh token")
	}
	client, err := s.clientOf(ctx, m, creds[credClient], creds[credClientKey], creds[credTokenAuth])
	if errors.Is(err, errInvalidGrant) {
		return nil, s.disconnect(ctx, l, "the OAuth client changed since the sign-in")
	}
	if err != nil {
		return nil, err
	}
	tok, err := s.tokenRequest(ctx, creds[credTokenURL], withoutEmpty(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {creds[credRefresh]},
		"resource": {creds[credResource]}}), client)
	if errors.Is(err, errInvalidGrant) {
		return nil, s.disconnect(ctx, l, "the refresh was refused (invalid_grant)")
	}
	if err != nil {
		return nil, err
	}
	next := tok.creds(pendingOAuth{ClientID: creds[credClient], TokenURL: creds[credTokenURL], Resource: creds[credResource], ClientKey: creds[credClientKey], TokenAuth: creds[credTokenAuth]}, s.Opts.Now())
	if next[credRefresh] == "" {
		next[credRefresh] = creds[credRefresh]
	}
	sealed, err := s.Seal(ctx, l.LoginID, next)
	if err != nil {
		return nil, err
	}
	if _, err := s.executeLogin(ctx, "system", l.Stream(), login.RefreshTokens{LoginID: l.LoginID, Credential: sealed, At: s.Opts.Now()}); err != nil {
		return nil, err
	}
	s.Opts.Pool.Drop(l.LoginID)
	return next, nil
}

// disconnect marks the login disconnected and answers why (or the store's failure): never nil.
func (s *Service) disconnect(ctx context.Context, l login.State, reason string) error {
	_, err := s.executeLogin(ctx, "system", l.Stream(), login.Disconnect{LoginID: l.LoginID, Reason: reason, At: s.Opts.Now()})
	s.Opts.Pool.Drop(l.LoginID)
	if err != nil {
		return err
	}
	return domain.Errorf(domain.CodeUnprocessable, "the login is disconnected: %s; sign in again", reason)
}

func (s *Service) refreshLock(id uuid.UUID) *sync.Mutex {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refreshing == nil {
		s.refreshing = map[uuid.UUID]*sync.Mutex{}
	}
	mu, ok := s.refreshing[id]
	if !ok {
		mu = &sync.Mutex{}
		s.refreshing[id] = mu
	}
	return mu
}
