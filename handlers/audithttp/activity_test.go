package audithttp_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// portalSession is a websession.Portal whose one session is user's.
type portalSession struct{ user uuid.UUID }

func (p portalSession) Session(*http.Request) (websession.Session, error) {
	return websession.Session{User: p.user}, nil
}
func (portalSession) SameOrigin(*http.Request) bool { return true }

// A read model that cannot be read is a 503 on every Activity route, never a 401 or a 500.
func TestActivityStorageFailureIs503(t *testing.T) {
	n := testenv.OpenSQLite(t)
	r := chi.NewRouter()
	audithttp.MountActivity(r, audithttp.ActivityDeps{
		Sessions: portalSession{uuid.New()}, Records: auditrm.Reader{DB: n.DB}, Agents: &organizationsrm.Reader{DB: n.DB},
		Keys: identityrm.Reader{DB: n.DB}, Clients: oauthrm.Reader{DB: n.DB},
	})
	if err := n.DB.Close(); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/api/activity", "/api/activity/summary", "/api/activity/names", "/api/activity/" + uuid.NewString()} {
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != http.StatusServiceUnavailable {
			t.Errorf("%s with the database closed: %d %s, want 503", path, w.Code, w.Body)
		}
	}
}
