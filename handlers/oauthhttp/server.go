package oauthhttp

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/token/jwt"

	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/domain/toolset"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// Scopes the server knows. "mcp" is access to the /mcp endpoint; "offline_access" is accepted for
// clients that ask for it (every client gets refresh tokens anyway).
const (
	ScopeMCP           = "mcp"
	ScopeOfflineAccess = "offline_access"
)

// SupportedScopes are advertised in the metadata and granted by default.
var SupportedScopes = []string{ScopeMCP, ScopeOfflineAccess}

// Defaults of Options.
const (
	DefaultAccessTokenTTL    = 10 * time.Minute
	DefaultRefreshTokenTTL   = 30 * 24 * time.Hour
	DefaultCodeTTL           = 5 * time.Minute
	DefaultRegistrationLimit = 10 // per client address per minute
)

// Users is the part of the identity read model the consent page needs.
type Users interface {
	UserByID(ctx context.Context, id uuid.UUID) (identityrm.User, error)
}

// Options configure a Server; required fields are marked.
type Options struct {
	Clients  *oauthclients.Service // required: records clients and grants (every write)
	DB       *sql.DB               // required: the read models (oauth projection)
	Sessions *websession.Manager   // required: the portal session
	Users    Users                 // required: to show who is consenting
	// Agents, when set, lets the user pick on the consent page which of their agents the client acts
	// as (projections/organizationsrm.Reader). Unset, every grant acts as the user's default agent.
	Agents Agents
	// PublicURL is SERVER_PUBLIC_URL: the issuer, and the base of the canonical /mcp resource. Required.
	PublicURL string
	// SigningKey (at least 32 bytes, the same on every replica) is the seed of the token signing key,
	// the HMAC secret of codes and refresh tokens, and the consent CSRF key. Required.
	SigningKey []byte
	// AccessTokenTTL is the lifetime of an access token (default DefaultAccessTokenTTL).
	AccessTokenTTL time.Duration
	// RefreshTokenTTL is the lifetime of a refresh token (default DefaultRefreshTokenTTL).
	RefreshTokenTTL time.Duration
	// CodeTTL is the lifetime of an authorization code (default DefaultCodeTTL).
	CodeTTL time.Duration
	// RegistrationLimit is how many registrations one client address may make per minute (default
	// DefaultRegistrationLimit).
	RegistrationLimit int
	Logger            *slog.Logger
	// Now is the clock of token verification and of the times put in the commands and metadata the
	// server hands to Clients (default time.Now); give Clients the same clock.
	Now func() time.Time
	// CatchUp, when set, waits until the oauth read model has applied everything committed to the log
	// so far (bounded by its context): the server calls it when a client, code or refresh token is not
	// found, since another replica may have written it a moment ago, and then looks again. nil: a miss
	// is final, which holds only with one replica.
	CatchUp func(context.Context) error
}

// Agents lists the agents a user may grant a client to act as, and the organisations they are in.
type Agents interface {
	AgentsOf(ctx context.Context, user uuid.UUID) ([]organizationsrm.Agent, error)
	Memberships(ctx context.Context, user uuid.UUID) ([]organizationsrm.Membership, error)
}

// Server is the authorization server.
type Server struct {
	opts     Options
	log      *slog.Logger
	keys     *keys
	provider fosite.OAuth2Provider
	storage  *storage
	reader   oauthrm.Reader
	issuer   string
	resource string // the canonical /mcp URL: the audience of every access token (see loop)
	// loop are the loopback aliases of a loopback public URL (internal/httpserve.Loopback): each is an
	// issuer and its /mcp a resource of this one server; none when the public URL is not loopback.
	loop httpserve.Loopback
}

// New checks opts and composes the server.
func New(opts Options) (*Server, error) {
	if opts.Clients == nil || opts.DB == nil || opts.Sessions == nil || opts.Users == nil {
		return nil, errors.New("oauth: Clients, DB, Sessions and Users are required")
	}
	u, err := url.Parse(opts.PublicURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("oauth: PublicURL must be an absolute http or https URL without query or fragment")
	}
	k, err := newKeys(opts.SigningKey)
	if err != nil {
		return nil, err
	}
	if opts.AccessTokenTTL <= 0 {
		opts.AccessTokenTTL = DefaultAccessTokenTTL
	}
	if opts.RefreshTokenTTL <= 0 {
		opts.RefreshTokenTTL = DefaultRefreshTokenTTL
	}
	if opts.CodeTTL <= 0 {
		opts.CodeTTL = DefaultCodeTTL
	}
	if opts.RegistrationLimit <= 0 {
		opts.RegistrationLimit = DefaultRegistrationLimit
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	issuer := strings.TrimRight(opts.PublicURL, "/")
	s := &Server{opts: opts, log: log, keys: k, reader: oauthrm.Reader{DB: opts.DB}, issuer: issuer, resource: issuer + "/mcp", loop: httpserve.NewLoopback(issuer)}
	audience := []string{s.resource}
	for _, o := range s.loop.Origins() {
		if o != issuer {
			audience = append(audience, o+"/mcp")
		}
	}
	s.storage = &storage{
		clients: opts.Clients, reader: s.reader, audience: audience, issuerOf: s.issuerOfAudience,
		scopes: SupportedScopes, kid: k.kid, now: func() time.Time { return opts.Now().UTC() },
		catchUp: opts.CatchUp,
	}
	cfg := &fosite.Config{
		AccessTokenLifespan:   opts.AccessTokenTTL,
		RefreshTokenLifespan:  opts.RefreshTokenTTL,
		AuthorizeCodeLifespan: opts.CodeTTL,
		GlobalSecret:          k.hmacSecret,
		AccessTokenIssuer:     issuer,
		TokenURL:              issuer + "/oauth/token",
		// PKCE S256 for every client (OAuth 2.1 section 7.5.1; MCP authorization "Authorization Code
		// Protection"): a missing challenge and the plain method are refused.
		EnforcePKCE:                    true,
		EnforcePKCEForPublicClients:    true,
		EnablePKCEPlainChallengeMethod: false,
		// Every grant may refresh; no offline scope is needed for a refresh token.
		RefreshTokenScopes: []string{},
		JWTScopeClaimKey:   jwt.JWTScopeFieldString,
		// The code's stored request keeps the redirect URI and the PKCE challenge.
		SanitationWhiteList:      []string{"code", "redirect_uri", "code_challenge", "code_challenge_method"},
		RedirectSecureChecker:    fosite.IsRedirectURISecureStrict,
		ScopeStrategy:            fosite.ExactScopeStrategy,
		AudienceMatchingStrategy: fosite.ExactAudienceMatchingStrategy,
	}
	strategy := compose.NewOAuth2JWTStrategy(func(context.Context) (interface{}, error) { return k.signer, nil },
		compose.NewOAuth2HMACStrategy(cfg), cfg)
	s.provider = compose.Compose(cfg, s.storage, strategy,
		compose.OAuth2AuthorizeExplicitFactory,
		compose.OAuth2RefreshTokenGrantFactory,
		compose.OAuth2TokenRevocationFactory,
		compose.OAuth2PKCEFactory,
	)
	return s, nil
}

// Resource is the canonical URL of the /mcp endpoint: the audience of every access token.
func (s *Server) Resource() string { return s.resource }

// Issuer is the authorization server's issuer identifier (RFC 8414 section 2).
func (s *Server) Issuer() string { return s.issuer }

// AccessTokenTTL is how long an access token lives.
func (s *Server) AccessTokenTTL() time.Duration { return s.opts.AccessTokenTTL }

// ProtectedResourceMetadataURL is the RFC 9728 metadata URL for /mcp, to name in WWW-Authenticate.
// A request on a loopback alias is named the alias's (handlers/mcp does that with Options.Loopback).
func (s *Server) ProtectedResourceMetadataURL() string {
	return s.issuer + "/.well-known/oauth-protected-resource/mcp"
}

// issuerAt is the issuer a request reaches: the loopback alias its Host names (when the public URL is
// loopback and the port is the public one), the public issuer otherwise. X-Forwarded-Host is not
// read: a loopback public URL has no proxy in front.
func (s *Server) issuerAt(r *http.Request) string {
	if b, ok := s.loop.Base(r.Host); ok {
		return b
	}
	return s.issuer
}

// isResource reports whether res is a resource of this server: /mcp (the canonical resource) or a
// toolset's endpoint /mcp/ts/<name>, on the issuer or on a loopback alias of it.
func (s *Server) isResource(res string) bool {
	_, _, ok := s.splitResource(res)
	return ok
}

// splitResource splits a resource of this server into its base (the issuer, or a loopback alias) and
// the toolset it names ("" for /mcp).
func (s *Server) splitResource(res string) (base, toolsetName string, ok bool) {
	if i := strings.Index(res, "/mcp/ts/"); i >= 0 {
		base, toolsetName = res[:i], res[i+len("/mcp/ts/"):]
		if !toolset.ValidName(toolsetName) {
			return "", "", false
		}
	} else if base, ok = strings.CutSuffix(res, "/mcp"); !ok {
		return "", "", false
	}
	return base, toolsetName, base == s.issuer || s.loop.IsOrigin(base)
}

// issuerOfResource is the issuer whose resource res is: a loopback alias for a resource on it, the
// public issuer for anything else (a resource of the public URL, or none).
func (s *Server) issuerOfResource(res string) string {
	if base, _, ok := s.splitResource(res); ok {
		return base
	}
	return s.issuer
}

// issuerOfAudience is the issuer of a grant for these audiences: the first loopback alias among them,
// the public issuer otherwise.
func (s *Server) issuerOfAudience(aud []string) string {
	for _, a := range aud {
		if iss := s.issuerOfResource(a); iss != s.issuer {
			return iss
		}
	}
	return s.issuer
}

// Mount adds the routes to r.
func (s *Server) Mount(r chi.Router) {
	r.Get("/.well-known/oauth-authorization-server", cors(s.authorizationServerMetadata))
	r.Get("/.well-known/oauth-protected-resource", cors(s.protectedResourceMetadata))
	r.Get("/.well-known/oauth-protected-resource/mcp", cors(s.protectedResourceMetadata))
	r.Options("/.well-known/oauth-authorization-server", cors(nil))
	r.Options("/.well-known/oauth-protected-resource", cors(nil))
	r.Options("/.well-known/oauth-protected-resource/mcp", cors(nil))
	r.Get("/.well-known/oauth-protected-resource/mcp/ts/{toolset}", cors(s.toolsetResourceMetadata))
	r.Options("/.well-known/oauth-protected-resource/mcp/ts/{toolset}", cors(nil))
	r.Post("/oauth/register", cors(s.registrationLimiter(s.register)))
	r.Options("/oauth/register", cors(nil))
	r.Get("/oauth/authorize", s.authorizeGet)
	r.Post("/oauth/authorize", s.authorizePost)
	r.Post("/oauth/token", cors(s.token))
	r.Options("/oauth/token", cors(nil))
	r.Post("/oauth/revoke", cors(s.revoke))
	r.Options("/oauth/revoke", cors(nil))
	r.Get("/api/mcp-clients", s.listClients)
	r.Delete("/api/mcp-clients/{client_id}", s.revokeClient)
}

// cors opens the endpoints a browser-based MCP client calls cross-origin. None of them reads a cookie,
// so any origin may call them (no credentials are allowed). A nil next answers the preflight.
func cors(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Origin") != "" {
			h := w.Header()
			h.Set("Access-Control-Allow-Origin", "*")
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			h.Set("Access-Control-Max-Age", "600")
		}
		if next == nil || r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next(w, r)
	}
}

// origin is what an appended event records about the request that caused it.
func (s *Server) origin(r *http.Request, actor, clientID string) oauthclients.Origin {
	return oauthclients.Origin{Actor: actor, ClientID: clientID, CorrelationID: middleware.GetReqID(r.Context()), At: s.opts.Now().UTC()}
}

func parseUser(s string) uuid.UUID {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil
	}
	return id
}
