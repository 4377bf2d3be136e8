package websession_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/app/portalsessions"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/portalsessionsrm"
)

type rig struct {
	m   *websession.Manager
	db  *sql.DB
	now time.Time
}

// newRig is a Manager whose ends go to a real log and read model (SQLite).
func newRig(t *testing.T) *rig {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db := testenv.MigratedSQLite(t)
	log := memory.New(nil)
	runner, err := projections.NewRunner(log, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{portalsessionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; log.Close(); db.Close() })
	r := &rig{db: db, now: time.Now().UTC()}
	r.m, err = websession.New([]byte(strings.Repeat("k", 32)), "http://127.0.0.1:8080", &websession.Options{
		Now: func() time.Time { return r.now }, Ended: portalsessionsrm.Reader{DB: db}, Ends: mustEnds(t, log, runner, func() time.Time { return r.now }),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// through sends a request with c through Guard and reports what the handler behind it saw.
func (r *rig) through(c *http.Cookie) (status int, user uuid.UUID, signedIn bool, resp *httptest.ResponseRecorder) {
	req := httptest.NewRequest("GET", "/api/me", nil)
	req.AddCookie(c)
	w := httptest.NewRecorder()
	r.m.Guard(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, signedIn = r.m.User(req)
	})).ServeHTTP(w, req)
	return w.Code, user, signedIn, w
}

func TestGuardRefusesAnEndedSession(t *testing.T) {
	r := newRig(t)
	user := uuid.New()
	c, err := r.m.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, ok, _ := r.through(c); !ok || got != user {
		t.Fatalf("a live session is refused: %s %v", got, ok)
	}
	req := httptest.NewRequest("GET", "/", nil)
	req.AddCookie(c)
	s, err := r.m.Session(req)
	if err != nil || s.User != user || s.ID == uuid.Nil || !s.Fresh(r.now) {
		t.Fatalf("Session = %+v, %v", s, err)
	}
	if err := r.m.End(context.Background(), s, eventstore.Metadata{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	_, _, ok, w := r.through(c)
	if ok {
		t.Fatal("an ended session still signs the request in")
	}
	if sc := w.Header().Get("Set-Cookie"); !strings.Contains(sc, websession.CookieName+"=;") {
		t.Errorf("the ended cookie is not removed from the browser: %q", sc)
	}
	// Without Guard, the handler's own check refuses it too.
	if _, ok := r.m.User(req); ok {
		t.Fatal("User accepts an ended session outside Guard")
	}
}

func TestGuardAnswers503WhenTheReadModelIsDown(t *testing.T) {
	r := newRig(t)
	c, _ := r.m.Cookie(uuid.New())
	r.db.Close()
	status, _, ok, w := r.through(c)
	if status != http.StatusServiceUnavailable || ok || w.Header().Get("Retry-After") == "" {
		t.Fatalf("status %d, signed in %v, Retry-After %q: want 503 with Retry-After", status, ok, w.Header().Get("Retry-After"))
	}
	if !strings.Contains(w.Body.String(), `"unavailable"`) {
		t.Fatalf("body %s", w.Body)
	}
	// A request without a cookie needs no lookup and passes.
	w = httptest.NewRecorder()
	r.m.Guard(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Code != http.StatusTeapot {
		t.Fatalf("a request without a session: %d", w.Code)
	}
}

func TestFresh(t *testing.T) {
	issued := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	s := websession.Session{IssuedAt: issued}
	for _, tc := range []struct {
		at   time.Time
		want bool
	}{
		{issued, true},
		{issued.Add(websession.FreshFor), true},
		{issued.Add(websession.FreshFor + time.Second), false},
		{issued.Add(-30 * time.Second), true}, // a replica's clock a little behind
		{issued.Add(-time.Hour), false},
	} {
		if got := s.Fresh(tc.at); got != tc.want {
			t.Errorf("Fresh at %s after issue = %v, want %v", tc.at.Sub(issued), got, tc.want)
		}
	}
}

// mustEnds records session ends through the use case the server uses, on the test's clock.
func mustEnds(t *testing.T, store eventstore.Store, runner portalsessions.Waiter, now func() time.Time) *portalsessions.Service {
	t.Helper()
	s, err := portalsessions.New(store, runner, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
