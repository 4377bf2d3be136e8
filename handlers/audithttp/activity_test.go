package audithttp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

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

// The chart's default range is the last ActivityDefaultDays UTC days, today included, at every
// hour of the day (at 23:30 its end is the next midnight, and it still has today and 13 before).
func TestActivityDefaultRangeIsFourteenDaysAtEveryHour(t *testing.T) {
	n := testenv.OpenSQLite(t)
	user := uuid.New()
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{0, 30 * time.Minute, 11 * time.Hour, 22*time.Hour + 59*time.Minute, 23*time.Hour + 30*time.Minute, 24*time.Hour - time.Second} {
		now := day.Add(at)
		r := chi.NewRouter()
		audithttp.MountActivity(r, audithttp.ActivityDeps{
			Sessions: portalSession{user}, Records: auditrm.Reader{DB: n.DB}, Agents: &organizationsrm.Reader{DB: n.DB},
			Keys: identityrm.Reader{DB: n.DB}, Clients: oauthrm.Reader{DB: n.DB}, Now: func() time.Time { return now },
		})
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/api/activity/summary", nil))
		if w.Code != http.StatusOK {
			t.Fatalf("at %s: %d %s", now, w.Code, w.Body)
		}
		var s auditrm.Summary
		if err := json.Unmarshal(w.Body.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if len(s.Days) != audithttp.ActivityDefaultDays {
			t.Errorf("at %s: %d days, want %d", now.Format(time.TimeOnly), len(s.Days), audithttp.ActivityDefaultDays)
			continue
		}
		if first, last := s.Days[0].Start, s.Days[len(s.Days)-1].Start; !last.Equal(day) || !first.Equal(day.AddDate(0, 0, -13)) {
			t.Errorf("at %s: days %s to %s, want %s to %s", now.Format(time.TimeOnly), first, last, day.AddDate(0, 0, -13), day)
		}
	}
}
