package authn

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/oauthhttp"
	"github.com/workbench/workbench/projections/identityrm"
)

// AccessTokenVerifier checks an access token issued by the workbench's authorization server
// (*oauth.Server).
type AccessTokenVerifier interface {
	VerifyAccessToken(ctx context.Context, raw string) (oauthhttp.AccessClaims, error)
}

// UserReader finds the user an access token names.
type UserReader interface {
	UserByID(ctx context.Context, id uuid.UUID) (identityrm.User, error)
}

// AccessTokens authenticates OAuth access tokens issued by this server (handlers/oauthhttp), sent as a
// Bearer token in the Authorization header only: a token in the query string is refused (BearerToken).
// A token issued for one toolset's endpoint is accepted on that path alone.
type AccessTokens struct {
	Verifier AccessTokenVerifier
	Users    UserReader
}

var _ mcp.Authenticator = AccessTokens{}

// Authenticate implements mcp.Authenticator.
func (a AccessTokens) Authenticate(r *http.Request) (mcp.Principal, error) {
	token, err := BearerToken(r)
	if err != nil {
		return mcp.Principal{}, err
	}
	claims, err := a.Verifier.VerifyAccessToken(r.Context(), token)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeInternal && !errors.Is(err, oauthhttp.ErrNotAccessToken) {
			return mcp.Principal{}, unavailable(err)
		}
		return mcp.Principal{}, err
	}
	if claims.Toolset != "" && r.URL.Path != "/mcp/ts/"+claims.Toolset {
		// Issued for one toolset's endpoint (RFC 8707 resource): good there alone.
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "access token refused: it was issued for the toolset endpoint /mcp/ts/%s alone", claims.Toolset)
	}
	u, err := a.Users.UserByID(r.Context(), claims.UserID)
	if errors.Is(err, identityrm.ErrNotFound) {
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "the access token names no workbench user")
	}
	if err != nil {
		return mcp.Principal{}, unavailable(err)
	}
	agent := claims.AgentID
	if agent == uuid.Nil {
		agent = identitydom.DefaultAgentID(u.ID)
	}
	return mcp.Principal{UserID: u.ID.String(), Email: u.Email, Method: "oauth", ClientID: claims.ClientID, AgentID: agent}, nil
}
