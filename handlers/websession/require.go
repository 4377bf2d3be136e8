package websession

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers"
)

// Portal is what a portal API route needs of the session manager (*Manager).
type Portal interface {
	Session(r *http.Request) (Session, error)
	SameOrigin(r *http.Request) bool
}

// RequireUser wraps a portal API route: a request that changes something must come from the
// portal's origin (403 CROSS_ORIGIN), the caller must hold a live portal session (401; a session store
// that cannot be reached is a 503, never a 401), the body is capped at maxBody bytes and the answer is
// never cached. next gets the session's user.
func RequireUser(p Portal, log *slog.Logger, maxBody int64, next func(w http.ResponseWriter, r *http.Request, user uuid.UUID)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !p.SameOrigin(r) {
			handlers.WriteJSON(w, http.StatusForbidden, handlers.ErrorBody{Error: "CROSS_ORIGIN", Message: "this request did not come from the workbench portal"})
			return
		}
		s, err := p.Session(r)
		switch {
		case errors.Is(err, ErrNoSession):
			handlers.WriteError(w, r, log, domain.Errorf(domain.CodeUnauthenticated, "sign in to the workbench portal first"))
			return
		case err != nil:
			handlers.WriteError(w, r, log, &domain.Error{Code: domain.CodeUnavailable, Message: "the session store cannot be reached; try again in a moment", Err: err})
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		w.Header().Set("Cache-Control", "no-store")
		next(w, r, s.User)
	}
}
