package authn

import (
	"context"
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/projections/identityrm"
)

// SessionCookies reads the session cookie of the portal.
type SessionCookies interface {
	User(r *http.Request) (uuid.UUID, bool)
	SameOrigin(r *http.Request) bool
}

// Users finds a user by id.
type Users interface {
	UserByID(ctx context.Context, id uuid.UUID) (identityrm.User, error)
}

// PortalSessions authenticates a request by the signed-in portal session, the third way the spec's
// tool-call path resolves a user (workbench-how-it-works.md: "api key / OAuth / session"; the portal's
// own pages call /mcp this way). A cookie travels with cross-site requests too,
// so a cookie alone is never enough: the request must also pass the portal's same-origin rule (its
// Origin is the server's, or it carries the portal's CSRF header). A request with an Authorization
// header is left to the Bearer authenticators, so a bad token is never rescued by a cookie.
type PortalSessions struct {
	Sessions SessionCookies
	Users    Users
}

var _ mcp.Authenticator = PortalSessions{}

// Authenticate implements mcp.Authenticator.
func (a PortalSessions) Authenticate(r *http.Request) (mcp.Principal, error) {
	if r.Header.Get("Authorization") != "" {
		return mcp.Principal{}, ErrNoCredential
	}
	id, ok := a.Sessions.User(r)
	if !ok {
		return mcp.Principal{}, ErrNoCredential
	}
	if !a.Sessions.SameOrigin(r) {
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "a portal session is accepted only from the portal's own origin")
	}
	u, err := a.Users.UserByID(r.Context(), id)
	if errors.Is(err, identityrm.ErrNotFound) {
		return mcp.Principal{}, domain.Errorf(domain.CodeUnauthenticated, "the session names an unknown user")
	}
	if err != nil {
		return mcp.Principal{}, unavailable(err)
	}
	return mcp.Principal{UserID: u.ID.String(), Email: u.Email, Method: "session", ClientID: "portal",
		AgentID: identitydom.DefaultAgentID(u.ID)}, nil
}
