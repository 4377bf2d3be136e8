// Package authn resolves who an inbound request acts for: a workbench API key or an OAuth access token
// sent as a Bearer token (RFC 6750 section 2.1), or the portal session. A credential is accepted only
// from the Authorization header, never from the query string or a body, so it does not end up in logs
// and caches (RFC 6750 section 5.3).
//
// Every authenticator answers one of three ways besides success: a refusal (CodeUnauthenticated, or
// CodeForbidden for a good token without the needed scope), or CodeUnavailable when the credential
// could not be checked at all (the database is down). The last is never a refusal: a client told 401
// discards its credentials or starts authorising again, while the credential is fine.
package authn

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/projections/identityrm"
)

// ErrNoCredential means the request carried no credential at all.
var ErrNoCredential = errors.New("no credential")

// KeyOwners finds the owner and agent of a live API key by its hash (identityrm.Reader or the prepared
// identityrm.KeyLookup).
type KeyOwners interface {
	OwnerByKeyHash(ctx context.Context, hash string) (identityrm.KeyOwner, error)
}

// APIKeys authenticates workbench API keys against the identity read model.
type APIKeys struct {
	Reader KeyOwners
}

var _ mcp.Authenticator = APIKeys{}

// Authenticate implements mcp.Authenticator.
func (a APIKeys) Authenticate(r *http.Request) (mcp.Principal, error) {
	token, err := BearerToken(r)
	if err != nil {
		return mcp.Principal{}, err
	}
	if !identitydom.LooksLikeAPIKey(token) {
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "not a workbench API key")
	}
	o, err := a.Reader.OwnerByKeyHash(r.Context(), identitydom.HashAPIKey(token))
	if errors.Is(err, identityrm.ErrNotFound) {
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "unknown or revoked API key")
	}
	if err != nil {
		return mcp.Principal{}, unavailable(err)
	}
	return mcp.Principal{UserID: o.User.ID.String(), Email: o.User.Email, Method: "api_key", ClientID: o.KeyID.String(), AgentID: o.AgentID}, nil
}

// unavailable marks a failure to look a credential up: the credential may be good, so the answer is
// 503 with Retry-After (CodeUnavailable), never 401, or clients would drop good credentials during a
// database outage.
func unavailable(err error) error {
	if domain.ErrorCode(err) == domain.CodeUnavailable {
		return err
	}
	return &domain.Error{Code: domain.CodeUnavailable, Message: "the credential cannot be checked now: the database is unavailable; retry shortly", Err: err}
}

// BearerToken returns the token of an "Authorization: Bearer" header. A request that also carries an
// access_token query parameter is refused outright.
func BearerToken(r *http.Request) (string, error) {
	if r.URL.Query().Has("access_token") {
		return "", domain.Errorf(domain.CodeUnauthenticated, "credentials in the query string are refused; send an Authorization header")
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", ErrNoCredential
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", domain.Errorf(domain.CodeUnauthenticated, "want Authorization: Bearer <token>")
	}
	return strings.TrimSpace(token), nil
}
