package connectorlogins

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/mcpclient"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
)

// How a client authenticates at the token endpoint (RFC 6749 section 2.3.1), named as RFC 7591
// section 2 names token_endpoint_auth_method.
const (
	tokenAuthNone  = "none"
	tokenAuthBasic = "client_secret_basic"
	tokenAuthPost  = "client_secret_post"
)

// The credential fields a configured login adds to a dynamic one's: where its client comes from, so a
// refresh reads the client's secret again at call time (the secret is never stored on the login), and
// how the client authenticates.
const (
	credClientKey = "client_key"
	credTokenAuth = "token_endpoint_auth_method"
)

// ErrOAuthNotSetUp says the connector's client is a platform key (or a <PLUGIN>_CLIENT_ID) nobody has
// set: its Connect answers 422 with setup_state not_set_up, which an instance admin fixes under Admin,
// Platform keys (unlike unsupported, where nothing the box holds can help).
var ErrOAuthNotSetUp = errors.New("oauth: the connector's client is not set up")

// oauthClient is the client a sign-in and its refreshes use.
type oauthClient struct {
	ID     string
	Secret string
	// Auth is how the client authenticates at the token endpoint (tokenAuth*).
	Auth string
	// Key names the platform key the client was read from ("integration:<slug>", "connector:<slug>"),
	// or "env:<slug>" for a <PLUGIN>_CLIENT_ID; empty for a registered public client.
	Key string
}

// authenticate adds the client's authentication to a token request (RFC 6749 section 2.3.1): the
// client_id alone for a public client, client_id and client_secret in the body, or HTTP Basic with
// both form-encoded first.
func (c oauthClient) authenticate(form url.Values) func(*http.Request) {
	switch c.Auth {
	case tokenAuthBasic:
		return func(r *http.Request) { r.SetBasicAuth(url.QueryEscape(c.ID), url.QueryEscape(c.Secret)) }
	case tokenAuthPost:
		form.Set("client_id", c.ID)
		form.Set("client_secret", c.Secret)
	default:
		form.Set("client_id", c.ID)
	}
	return func(*http.Request) {}
}

// signInPlan is where a sign-in sends the operator and what its token requests carry.
type signInPlan struct {
	Strategy     string
	AuthorizeURL string
	TokenURL     string
	// Resource is the RFC 8707 resource indicator (the endpoint, for a discovered authorization
	// server); empty for an integration's provider, which knows none.
	Resource  string
	Scopes    []string
	Separator string
	// Params are extra authorization parameters (an integration's authorize_params).
	Params map[string]string
	Client oauthClient
}

// strategyOf is a manifest's OAuth strategy ("" for a connector that does not sign in with OAuth).
func strategyOf(m *connector.Manifest) string {
	if !isOAuth(m) || m.Auth.OAuth == nil {
		return ""
	}
	return m.Auth.OAuth.Strategy
}

// planSignIn is the strategy seam of Connect: it finds the client and the endpoints of a sign-in.
func (s *Service) planSignIn(ctx context.Context, user uuid.UUID, srvID string, m *connector.Manifest, redirect string) (signInPlan, error) {
	o := m.Auth.OAuth
	switch {
	case o == nil:
		return signInPlan{}, &domain.Error{Code: domain.CodeUnprocessable, Message: fmt.Sprintf("%s signs in with OAuth but names no strategy", m.DisplayName), Err: ErrOAuthUnsupported}
	case o.Strategy == StrategyDynamic:
		if m.Endpoint == nil {
			return signInPlan{}, domain.Errorf(domain.CodeUnprocessable, "%s has no endpoint to sign in to", nameOf(m))
		}
		as, err := s.discover(ctx, m.Endpoint.URL)
		if err != nil {
			return signInPlan{}, err
		}
		clientID, err := s.clientFor(ctx, user, srvID, as, redirect)
		if err != nil {
			return signInPlan{}, err
		}
		return planOf(as, m, oauthClient{ID: clientID, Auth: tokenAuthNone}), nil
	case o.Strategy == StrategyConfigured && o.Provider != "":
		return s.planProvider(ctx, m)
	case o.Strategy == StrategyConfigured:
		// The client is the connector's own platform key; the endpoints are discovered as for a
		// dynamic connector, and nothing is ever registered.
		if m.Endpoint == nil {
			return signInPlan{}, domain.Errorf(domain.CodeUnprocessable, "%s has no endpoint to sign in to", nameOf(m))
		}
		client, err := s.connectorClient(ctx, m)
		if err != nil {
			return signInPlan{}, err
		}
		as, err := s.discover(ctx, m.Endpoint.URL)
		if err != nil {
			return signInPlan{}, err
		}
		client.Auth = tokenAuthFor(as.TokenAuthMethods, client.Secret)
		return planOf(as, m, client), nil
	case o.Strategy == StrategyGitHubApp:
		return s.planGitHubApp(ctx, m)
	}
	return signInPlan{}, &domain.Error{Code: domain.CodeUnprocessable, Message: fmt.Sprintf("%s signs in with the OAuth strategy %q, which this server does not know", m.DisplayName, o.Strategy), Err: ErrOAuthUnsupported}
}

// planOf is the plan of a discovered authorization server.
func planOf(as authServer, m *connector.Manifest, c oauthClient) signInPlan {
	scopes := m.Auth.OAuth.Scopes
	if len(scopes) == 0 {
		scopes = as.ScopesOffered
	}
	return signInPlan{Strategy: m.Auth.OAuth.Strategy, AuthorizeURL: as.AuthorizeURL, TokenURL: as.TokenURL, Resource: as.Resource, Scopes: scopes, Client: c}
}

// tokenAuthFor picks how a confidential client authenticates from the methods the authorization
// server offers (RFC 8414 section 2: client_secret_basic when it names none).
func tokenAuthFor(offered []string, secret string) string {
	switch {
	case secret == "":
		return tokenAuthNone
	case len(offered) == 0 || slices.Contains(offered, tokenAuthBasic):
		return tokenAuthBasic
	case slices.Contains(offered, tokenAuthPost):
		return tokenAuthPost
	}
	return tokenAuthBasic
}

// planProvider is the plan of a configured connector with a provider: the integration's endpoints,
// scopes and authorization parameters, and its client.
func (s *Service) planProvider(ctx context.Context, m *connector.Manifest) (signInPlan, error) {
	in, err := s.provider(m)
	if err != nil {
		return signInPlan{}, err
	}
	client, err := s.integrationClient(ctx, in)
	if err != nil {
		return signInPlan{}, err
	}
	o := in.Auth.OAuth2
	urls := []string{o.AuthorizeURL, o.TokenURL}
	if m.Endpoint != nil {
		// The save-time address check of the endpoint the tokens will travel to.
		urls = append(urls, m.Endpoint.URL)
	}
	for _, u := range urls {
		if err := mcpclient.CheckURL(ctx, u, s.Opts.AllowLoopback, s.Opts.Resolver); err != nil {
			return signInPlan{}, domain.Errorf(domain.CodeUnprocessable, "oauth: %s", err.Error())
		}
	}
	scopes := m.Auth.OAuth.Scopes
	if len(scopes) == 0 {
		scopes = o.Scopes
	}
	return signInPlan{Strategy: StrategyConfigured, AuthorizeURL: o.AuthorizeURL, TokenURL: o.TokenURL, Scopes: scopes, Separator: o.ScopeSeparator,
		Params: o.AuthorizeParams, Client: client}, nil
}

// provider is the integration a configured connector's auth.oauth.provider names.
func (s *Service) provider(m *connector.Manifest) (*plugins.Integration, error) {
	name := m.Auth.OAuth.Provider
	var in *plugins.Integration
	ok := false
	if s.Opts.Integrations != nil {
		in, ok = s.Opts.Integrations.Integration(name)
	}
	if !ok {
		return nil, &domain.Error{Code: domain.CodeUnprocessable, Message: fmt.Sprintf("%s signs in through the integration %q, which this server does not have", m.DisplayName, name), Err: ErrOAuthUnsupported}
	}
	if in.Auth.Mode != plugins.AuthOAuth2 || in.Auth.OAuth2 == nil {
		return nil, &domain.Error{Code: domain.CodeUnprocessable, Message: fmt.Sprintf("%s signs in through the integration %q, which has no OAuth client", m.DisplayName, name), Err: ErrOAuthUnsupported}
	}
	return in, nil
}

// integrationClient is an integration's OAuth client: the platform key integration:<slug>, else the
// <PLUGIN>_CLIENT_ID and _CLIENT_SECRET the server started with.
func (s *Service) integrationClient(ctx context.Context, in *plugins.Integration) (oauthClient, error) {
	auth := tokenAuthBasic
	if in.Auth.OAuth2.TokenAuthStyle == plugins.TokenAuthBody {
		auth = tokenAuthPost
	}
	key := "integration:" + in.Name
	fields, ok, err := s.readPlatformKey(ctx, key)
	if err != nil {
		return oauthClient{}, err
	}
	c := oauthClient{Key: key}
	if ok && strings.TrimSpace(fields["client_id"]) != "" {
		c.ID, c.Secret = strings.TrimSpace(fields["client_id"]), strings.TrimSpace(fields["client_secret"])
	} else if env, ok := s.Opts.IntegrationClients[in.Name]; ok && env.ID != "" {
		c.ID, c.Secret, c.Key = env.ID, env.Secret, "env:"+in.Name
	} else {
		return oauthClient{}, &domain.Error{Code: domain.CodeUnprocessable, Err: ErrOAuthNotSetUp,
			Message: fmt.Sprintf("the %s OAuth client is not set up: an instance admin enters it under Admin, Platform keys (%s)", cmp.Or(strings.TrimSpace(in.DisplayName), in.Name), key)}
	}
	c.Auth = auth
	if c.Secret == "" {
		c.Auth = tokenAuthNone
	}
	return c, nil
}

// nameOf is the connector's display name for a message, its slug while it has none (a connector added
// by hand before its first initialize filled the name in).
func nameOf(m *connector.Manifest) string {
	return cmp.Or(strings.TrimSpace(m.DisplayName), m.Slug)
}

// connectorClient is a configured connector's own client, the platform key connector:<slug>.
func (s *Service) connectorClient(ctx context.Context, m *connector.Manifest) (oauthClient, error) {
	key := "connector:" + m.Slug
	fields, ok, err := s.readPlatformKey(ctx, key)
	if err != nil {
		return oauthClient{}, err
	}
	if !ok || strings.TrimSpace(fields["client_id"]) == "" {
		return oauthClient{}, &domain.Error{Code: domain.CodeUnprocessable, Err: ErrOAuthNotSetUp,
			Message: fmt.Sprintf("the OAuth client of %s is not set up: an instance admin enters its client_id and client_secret under Admin, Platform keys (%s)", nameOf(m), key)}
	}
	return oauthClient{ID: strings.TrimSpace(fields["client_id"]), Secret: strings.TrimSpace(fields["client_secret"]), Key: key}, nil
}

// readPlatformKey reads a platform key at call time; a store that cannot answer is 503.
func (s *Service) readPlatformKey(ctx context.Context, name string) (map[string]string, bool, error) {
	if s.Opts.PlatformKeys == nil {
		return nil, false, nil
	}
	fields, ok, err := s.Opts.PlatformKeys.PlatformKey(ctx, name)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, false, err
		}
		return nil, false, &domain.Error{Code: domain.CodeUnavailable, Message: "the platform keys cannot be read; try again in a moment", Err: err}
	}
	return fields, ok, nil
}

// clientOf is the client of a stored sign-in or login: a registered public client as stored, a
// configured one read again from where it came (its secret is never stored). A client whose id has
// changed since the sign-in cannot redeem that sign-in's grants.
func (s *Service) clientOf(ctx context.Context, m *connector.Manifest, id, key, auth string) (oauthClient, error) {
	if key == "" {
		return oauthClient{ID: id, Auth: tokenAuthNone}, nil
	}
	var c oauthClient
	var err error
	switch {
	case strings.HasPrefix(key, "connector:"):
		c, err = s.connectorClient(ctx, m)
	default:
		var in *plugins.Integration
		if in, err = s.provider(m); err == nil {
			c, err = s.integrationClient(ctx, in)
		}
	}
	if err != nil {
		return c, err
	}
	if c.ID != id {
		return c, &domain.Error{Code: domain.CodeUnprocessable, Message: "the OAuth client changed since this sign-in; sign in again", Err: errInvalidGrant}
	}
	if auth != "" {
		c.Auth = auth
	}
	return c, nil
}

// authorizationURL is where the operator goes: the authorization endpoint with the code flow's
// parameters (RFC 6749 section 4.1.1), PKCE S256 (RFC 7636), prompt=consent and, for a discovered
// server, the resource (RFC 8707). Parameters the endpoint URL or the integration carries are kept
// unless the flow sets them.
func (p signInPlan) authorizationURL(redirect, state, verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type": {"code"}, "client_id": {p.Client.ID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {state}, "prompt": {"consent"},
	}
	if p.Resource != "" {
		q.Set("resource", p.Resource)
	}
	if len(p.Scopes) > 0 {
		sep := p.Separator
		if sep == "" {
			sep = " "
		}
		q.Set("scope", strings.Join(p.Scopes, sep))
	}
	for k, v := range p.Params {
		if _, ok := q[k]; !ok {
			q.Set(k, v)
		}
	}
	au, _ := url.Parse(p.AuthorizeURL)
	if au.RawQuery != "" {
		extra, _ := url.ParseQuery(au.RawQuery)
		for k, v := range extra {
			if _, ok := q[k]; !ok {
				q[k] = v
			}
		}
	}
	au.RawQuery = q.Encode()
	return au.String()
}
