package oauthhttp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v3"
	josejwt "github.com/go-jose/go-jose/v3/jwt"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// ErrNotAccessToken means the credential is not shaped like this server's access token at all (an
// API key, say), so another authenticator may claim it.
var ErrNotAccessToken = errors.New("oauth: not an access token of this server")

// InsufficientScopeError is the refusal of a valid access token that lacks the scope the resource
// needs. It is a CodeForbidden *domain.Error for handlers that map codes; RequiredScope names the scope
// to put in WWW-Authenticate.
type InsufficientScopeError struct{ Scope string }

func (e *InsufficientScopeError) Error() string {
	return "access token refused: the " + e.Scope + " scope was not granted"
}

// RequiredScope is the scope the resource needs (the scope attribute of the challenge).
func (e *InsufficientScopeError) RequiredScope() string { return e.Scope }

// Unwrap makes the error a CodeForbidden *domain.Error.
func (e *InsufficientScopeError) Unwrap() error {
	return domain.Errorf(domain.CodeForbidden, "the access token was not granted the %s scope", e.Scope)
}

// AccessClaims are what a verified access token says.
type AccessClaims struct {
	UserID uuid.UUID
	// AgentID is the agent the grant was made for (domain/organization); uuid.Nil for a grant that
	// names none, which acts as the user's default agent.
	AgentID   uuid.UUID
	ClientID  string
	GrantID   string
	Scopes    []string
	ExpiresAt time.Time
	// Toolset confines the token to one toolset's endpoint, /mcp/ts/<Toolset>: it was issued for that
	// resource alone. "" for a token of /mcp, good at every endpoint.
	Toolset string
}

// clockSkew is the leeway on iat and nbf for replicas whose clocks differ slightly.
const clockSkew = time.Minute

// VerifyAccessToken checks an access token for the /mcp resource: an ES256 JWT of type at+jwt signed
// with this server's key, issued by this issuer, whose audience includes the canonical /mcp URL (RFC
// 8707; a token for any other audience is refused; with a loopback public URL, the issuer and /mcp of
// any loopback alias of its port count as this server's: they are one listener), unexpired, with the mcp scope, and whose grant has
// not been revoked (RFC 7009, code or refresh-token reuse). Refusals are CodeUnauthenticated errors,
// but for a valid token without the mcp scope (*InsufficientScopeError, CodeForbidden); a failure to
// read the grant is CodeUnavailable, never a refusal.
func (s *Server) VerifyAccessToken(ctx context.Context, raw string) (AccessClaims, error) {
	if strings.Count(raw, ".") != 2 {
		return AccessClaims{}, ErrNotAccessToken
	}
	tok, err := josejwt.ParseSigned(raw)
	if err != nil {
		return AccessClaims{}, ErrNotAccessToken
	}
	refuse := func(why string) (AccessClaims, error) {
		return AccessClaims{}, domain.Errorf(domain.CodeUnauthenticated, "access token refused: %s", why)
	}
	if len(tok.Headers) != 1 {
		return refuse("want exactly one signature")
	}
	h := tok.Headers[0]
	if h.Algorithm != string(jose.ES256) {
		return refuse("not signed with ES256")
	}
	if typ, _ := h.ExtraHeaders[jose.HeaderType].(string); !strings.EqualFold(typ, "at+jwt") {
		return refuse("not an at+jwt access token")
	}
	if h.KeyID != s.keys.kid {
		return refuse("signed with an unknown key")
	}
	var std josejwt.Claims
	var extra struct {
		ClientID string `json:"client_id"`
		GrantID  string `json:"gid"`
		Scope    string `json:"scope"`
		Agent    string `json:"agent"`
	}
	if err := tok.Claims(&s.keys.signer.PublicKey, &std, &extra); err != nil {
		return refuse("bad signature")
	}
	now := s.opts.Now()
	switch {
	case std.Issuer != s.issuer && !s.loop.IsOrigin(std.Issuer):
		return refuse("issued by another issuer")
	case !slices.ContainsFunc([]string(std.Audience), s.isResource):
		return refuse("issued for another audience")
	case std.Expiry == nil || !now.Before(std.Expiry.Time()):
		return refuse("expired")
	case std.NotBefore != nil && now.Add(clockSkew).Before(std.NotBefore.Time()):
		return refuse("not valid yet")
	case std.IssuedAt != nil && now.Add(clockSkew).Before(std.IssuedAt.Time()):
		return refuse("issued in the future")
	case extra.GrantID == "" || extra.ClientID == "":
		return refuse("no grant or client")
	}
	scopes := strings.Fields(extra.Scope)
	user, err := uuid.Parse(std.Subject)
	if err != nil {
		return refuse("no user")
	}
	var agent uuid.UUID
	if extra.Agent != "" {
		if agent, err = uuid.Parse(extra.Agent); err != nil {
			return refuse("a malformed agent")
		}
	}
	revoked, err := s.reader.AccessRevoked(ctx, extra.GrantID)
	if err != nil {
		return AccessClaims{}, &domain.Error{Code: domain.CodeUnavailable, Message: "the access token cannot be checked now: the database is unavailable",
			Err: fmt.Errorf("verify access token: %w", err)}
	}
	if revoked {
		return refuse("the grant was revoked")
	}
	if !slices.Contains(scopes, ScopeMCP) {
		// A good token for the wrong scope: 403 insufficient_scope (RFC 6750 section 3.1), so the client
		// asks the user for the scope instead of discarding its tokens.
		return AccessClaims{}, &InsufficientScopeError{Scope: ScopeMCP}
	}
	confined := ""
	for _, aud := range std.Audience {
		_, ts, ok := s.splitResource(aud)
		if ok && ts == "" {
			confined = "" // /mcp among them: every endpoint
			break
		}
		if ok && confined == "" {
			confined = ts
		}
	}
	return AccessClaims{UserID: user, AgentID: agent, ClientID: extra.ClientID, GrantID: extra.GrantID, Scopes: scopes, ExpiresAt: std.Expiry.Time(),
		Toolset: confined}, nil
}
