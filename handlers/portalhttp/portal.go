package portalhttp

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// Accounts is the part of app/accounts the routes use: who is signed in, and their API key.
type Accounts interface {
	User(ctx context.Context, id uuid.UUID) (accounts.User, error)
	MintKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (accounts.Key, eventstore.Position, error)
	RotateKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (accounts.Key, eventstore.Position, error)
	RevokeKey(ctx context.Context, user uuid.UUID, md eventstore.Metadata) (eventstore.Position, error)
	RevealKey(ctx context.Context, user uuid.UUID) (accounts.Key, error)
}

// Projections is the part of the projections runner used to read our own writes: a rotated key must
// stop authenticating at /mcp before the rotation is answered.
type Projections interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Catalog is the part of the plugin registry the integration routes read.
type Catalog interface {
	Integration(name string) (*plugins.Integration, bool)
	Integrations() []*plugins.Integration
}

// Connections is the part of the connections read model the catalog route reads.
type Connections interface {
	ForUser(ctx context.Context, user uuid.UUID) (map[string][]connectionsrm.Row, error)
}

// Deps is what the routes need; all are required in production (a test may leave out what the
// routes it calls do not reach).
type Deps struct {
	Sessions    *websession.Manager
	SignIn      *signin.Service
	Accounts    Accounts
	Projections Projections
	Credentials *connections.Service
	Catalog     Catalog
	Connections Connections
	// Admins are the instance admins' normalised emails (internal/config Config.Admins): an OAuth
	// integration whose client is not set shows them the setup instruction (the redirect URI, the
	// platform key to set); everyone else is told to ask their admin.
	Admins []string
	// APIKeys, when set, lets a workbench API key (Authorization: Bearer) sign its owner out
	// everywhere, for when the browser is out of reach (authn.APIKeys).
	APIKeys mcp.Authenticator
	Logger  *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// LinkLimit is how many sign-in link redemptions one client address may attempt per minute
	// (default DefaultLinkLimit); more are answered 429 with Retry-After.
	LinkLimit int
	// RedeemLimit is how many claim-link redemptions one client address may attempt per minute
	// (default DefaultRedeemLimit); more are answered 429 with Retry-After.
	RedeemLimit int
}

// DefaultLinkLimit bounds sign-in link redemptions per client address per minute. A link is used
// once by one person; each attempt loads an event stream and may append, so a flood is cut off here.
const DefaultLinkLimit = 30

// CodeCrossOrigin is the error code (handlers.ErrorBody.Error) of a state-changing request from
// another origin: 403.
const CodeCrossOrigin = "CROSS_ORIGIN"

// maxBody bounds request bodies (JSON and form posts; the largest is an integration's API key form).
const maxBody = 64 << 10

// Mount adds the routes to r.
func Mount(r chi.Router, d Deps) {
	if d.Logger == nil {
		d.Logger = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.LinkLimit <= 0 {
		d.LinkLimit = DefaultLinkLimit
	}
	if d.RedeemLimit <= 0 {
		d.RedeemLimit = DefaultRedeemLimit
	}
	h := &routes{Deps: d}
	r.Get("/api/me", h.portal(h.me))
	r.Post("/api/auth/logout", h.logout)
	r.Post("/api/auth/logout-everywhere", h.logoutEverywhereRoute)
	r.Get("/api/auth/providers", h.providers)
	r.Get("/api/auth/{provider}/login", h.login)
	r.Get("/api/auth/{provider}/callback", h.callback)
	r.With(handlers.LimitPerAddress(d.LinkLimit, time.Minute,
		"too many sign-in link attempts from this address; wait a minute and try again")).
		Get(signin.LinkPath+"{token}", h.link)

	r.Get("/api/apikey", h.portal(h.getKey))
	r.Post("/api/apikey", h.portal(h.mintKey))
	r.Delete("/api/apikey", h.portal(h.revokeKey))
	r.Post("/api/apikey/rotate", h.portal(h.rotateKey))
	r.Post("/api/apikey/reveal", h.portal(h.revealKey))

	r.Get("/api/integrations", h.portal(h.integrations))
	r.Get("/api/integrations/{name}/logo", h.logo)
	r.Post("/api/integrations/{name}/connect", h.portal(h.connect))

	r.With(handlers.LimitPerAddress(d.RedeemLimit, time.Minute,
		"too many claim-link redemptions from this address; wait a minute and try again")).
		Post("/api/connect/redeem", h.portal(h.redeem))
	r.Get("/api/auth/plugin/{integration}/callback", h.pluginCallback)
	r.Post("/api/integrations/{name}/apikey", h.portal(h.connectAPIKey))
	r.Delete("/api/integrations/{name}", h.portal(h.disconnect))
	r.Post("/api/integrations/{name}/default", h.portal(h.chooseDefault))
}

type routes struct{ Deps }

// crossOrigin refuses a state-changing request that fails websession's SameOrigin rule.
func (h *routes) crossOrigin(w http.ResponseWriter, r *http.Request) bool {
	if h.Sessions.SameOrigin(r) {
		return false
	}
	handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: CodeCrossOrigin,
		Message: "this request did not come from the workbench portal (send an Origin header of " + h.Sessions.Origin() + " or the " + websession.CSRFHeader + " header)"})
	return true
}

// portal requires a signed-in portal user and, for a state-changing method, a same-origin request.
func (h *routes) portal(next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.crossOrigin(w, r) {
			return
		}
		sess, err := h.session(r)
		if err != nil {
			handlers.WriteError(w, r, h.Logger, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		next(w, r, sess.User)
	}
}

// session is the signed-in session of r, or the error to answer: unauthenticated without one (or
// with an ended one), unavailable when the session store cannot say.
func (h *routes) session(r *http.Request) (websession.Session, error) {
	s, err := h.Sessions.Session(r)
	switch {
	case errors.Is(err, websession.ErrNoSession):
		return s, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first")
	case err != nil:
		return s, unavailable(err)
	}
	return s, nil
}

// unavailable is a storage failure of the session store: 503, never a sign-out.
func unavailable(err error) error {
	return &domain.Error{Code: domain.CodeUnavailable, Message: "the session store cannot be reached; try again in a moment", Err: err}
}

// md is the metadata of an event the signed-in user causes through the portal.
func (h *routes) md(r *http.Request, user uuid.UUID) eventstore.Metadata {
	return eventstore.Metadata{Actor: user.String(), CorrelationID: middleware.GetReqID(r.Context()), Time: h.Now().UTC()}
}

// noStore marks a response that must not be cached: it holds a secret or a session.
func noStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}
