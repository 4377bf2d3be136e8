package audithttp

import (
	"context"
	"net/http"
	"strconv"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers"
	"github.com/workbench/workbench/projections/auditrm"
)

// Paging limits of /api/audit.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// Reader lists one user's records from a read model (projections/auditrm.Reader implements it).
type Reader interface {
	// ForUser returns up to limit of the user's records, newest (latest in the log) first, starting
	// with the one just before `before` in log order; the zero `before` starts at the newest.
	ForUser(ctx context.Context, user uuid.UUID, before eventstore.Position, limit int) ([]auditrm.Record, error)
}

var _ Reader = auditrm.Reader{}

// Page is the JSON body of a /api/audit answer.
type Page struct {
	Records []auditrm.Record `json:"records"`
	// NextBefore, when set, is the `before` value that fetches the next (older) page; it is absent on
	// the last page.
	NextBefore string `json:"next_before,omitempty"`
}

// Handler answers GET /api/audit?limit=N&before=POS with the signed-in user's audit records, newest
// first, as a Page. userOf resolves the signed-in user; when it says no one is, the answer is 401.
// limit is 1 to MaxLimit (default DefaultLimit); before is a position as NextBefore gives it
// (COMMIT/PREPARE). A bad parameter is 400, another method 405.
func Handler(reader Reader, userOf func(*http.Request) (uuid.UUID, bool)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			handlers.WriteJSON(w, http.StatusMethodNotAllowed, handlers.ErrorBody{Error: "method_not_allowed", Message: r.Method + " is not allowed here; use GET"})
			return
		}
		user, ok := userOf(r)
		if !ok || user == uuid.Nil {
			handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeUnauthenticated, "sign in to see your audit records"))
			return
		}
		q := r.URL.Query()
		limit := DefaultLimit
		if s := q.Get("limit"); s != "" || q.Has("limit") {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 || n > MaxLimit {
				handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeInvalid, "limit must be a whole number from 1 to %d, not %q", MaxLimit, s))
				return
			}
			limit = n
		}
		before := eventstore.Start
		if s := q.Get("before"); s != "" || q.Has("before") {
			p, err := eventstore.ParsePosition(s)
			if err != nil || p.IsZero() {
				handlers.WriteError(w, r, nil, domain.Errorf(domain.CodeInvalid, "before must be a position as next_before gives it (COMMIT/PREPARE), not %q", s))
				return
			}
			before = p
		}
		// One more than asked says whether an older page exists.
		recs, err := reader.ForUser(r.Context(), user, before, limit+1)
		if err != nil {
			handlers.WriteError(w, r, nil, err)
			return
		}
		page := Page{Records: recs}
		if len(recs) > limit {
			page.Records = recs[:limit]
			page.NextBefore = page.Records[limit-1].Position.String()
		}
		if page.Records == nil {
			page.Records = []auditrm.Record{}
		}
		w.Header().Set("Cache-Control", "no-store")
		handlers.WriteJSON(w, http.StatusOK, page)
	})
}
