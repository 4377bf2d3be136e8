package portalsessionsrm_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/app/portalsessions"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/portalsessionsrm"
)

func TestEndedSessionsReadModel(t *testing.T) {
	for _, tc := range []struct {
		name string
		open func(t *testing.T) (*sql.DB, migrations.Dialect)
	}{
		{"sqlite", func(t *testing.T) (*sql.DB, migrations.Dialect) {
			db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "wb.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
			if err != nil {
				t.Fatal(err)
			}
			return db, migrations.SQLite
		}},
		{"postgres", func(t *testing.T) (*sql.DB, migrations.Dialect) {
			db, err := sql.Open("pgx", testenv.PostgresURL(t))
			if err != nil {
				t.Fatal(err)
			}
			return db, migrations.Postgres
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, dialect := tc.open(t)
			defer db.Close()
			checkReadModel(t, db, dialect)
		})
	}
}

// checkReadModel ends sessions through app/portalsessions (sign-out, sign-out everywhere) and asks the read
// model about them, as every request does.
func checkReadModel(t *testing.T, db *sql.DB, dialect migrations.Dialect) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
		t.Fatal(err)
	}
	log := memory.New(nil)
	defer log.Close()
	runner, err := projections.NewRunner(log, db, dialect, &projections.Options{Projections: []projections.Projection{portalsessionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	defer func() { stop(); <-done }()

	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	reader := portalsessionsrm.Reader{DB: db}
	ends, err := portalsessions.New(log, runner, clock)
	if err != nil {
		t.Fatal(err)
	}
	type sess struct {
		ID, User            uuid.UUID
		IssuedAt, ExpiresAt time.Time
	}
	ada, bob := uuid.New(), uuid.New()
	session := func(user uuid.UUID) sess {
		return sess{ID: uuid.New(), User: user, IssuedAt: now, ExpiresAt: now.Add(12 * time.Hour)}
	}
	ended := func(s sess) bool {
		t.Helper()
		got, err := reader.Ended(ctx, s.User, s.ID, s.IssuedAt)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	md := eventstore.Metadata{Actor: "test"}

	a1, a2, b1 := session(ada), session(ada), session(bob)
	if ended(a1) || ended(a2) || ended(b1) {
		t.Fatal("a session nobody ended is ended")
	}
	now = now.Add(time.Minute)
	if err := ends.End(ctx, a1.User, a1.ID, a1.IssuedAt, a1.ExpiresAt, md); err != nil {
		t.Fatal(err)
	}
	if err := ends.End(ctx, a1.User, a1.ID, a1.IssuedAt, a1.ExpiresAt, md); err != nil { // twice is fine
		t.Fatal(err)
	}
	if !ended(a1) || ended(a2) || ended(b1) {
		t.Fatalf("after signing a1 out: a1 %v a2 %v b1 %v", ended(a1), ended(a2), ended(b1))
	}

	now = now.Add(time.Minute)
	if err := ends.EndAll(ctx, ada, md); err != nil {
		t.Fatal(err)
	}
	later := sess{ID: uuid.New(), User: ada, IssuedAt: now.Add(time.Nanosecond), ExpiresAt: now.Add(time.Hour)}
	if !ended(a1) || !ended(a2) || ended(b1) || ended(later) {
		t.Fatalf("after signing ada out everywhere: a1 %v a2 %v b1 %v later %v", ended(a1), ended(a2), ended(b1), ended(later))
	}
	// An older cut arriving later does not move the cut back.
	now = now.Add(-30 * time.Second)
	if err := ends.EndAll(ctx, ada, md); err != nil {
		t.Fatal(err)
	}
	if !ended(a2) {
		t.Fatal("an earlier sign-out everywhere moved the cut back")
	}

	// A storage failure is an error, never a verdict.
	db.Close()
	if _, err := reader.Ended(ctx, ada, a2.ID, a2.IssuedAt); err == nil {
		t.Fatal("a closed database gave a verdict")
	}
}
