package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
)

func TestWriteGate(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"a nil gate never waits", func(t *testing.T) {
			var g *sqlite.WriteGate
			for range 2 {
				if err := g.Lock(context.Background()); err != nil {
					t.Fatalf("Lock: %v", err)
				}
			}
			g.Unlock()
		}},
		{"a second Lock waits for Unlock", func(t *testing.T) {
			g := sqlite.NewWriteGate()
			if err := g.Lock(context.Background()); err != nil {
				t.Fatal(err)
			}
			got := make(chan error, 1)
			go func() { got <- g.Lock(context.Background()) }()
			select {
			case err := <-got:
				t.Fatalf("second Lock returned %v while the gate was held", err)
			case <-time.After(50 * time.Millisecond):
			}
			g.Unlock()
			if err := <-got; err != nil {
				t.Fatalf("second Lock after Unlock: %v", err)
			}
			g.Unlock()
		}},
		{"Lock gives up when its context ends", func(t *testing.T) {
			g := sqlite.NewWriteGate()
			if err := g.Lock(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			if err := g.Lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Lock on a held gate with an ending context = %v, want DeadlineExceeded", err)
			}
			g.Unlock()
			if err := g.Lock(context.Background()); err != nil {
				t.Fatalf("Lock after the abandoned wait: %v", err)
			}
		}},
		{"Unlock of an open gate panics", func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			sqlite.NewWriteGate().Unlock()
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// openNoWait opens path the way OpenDB does but with busy_timeout=0: a writer that meets another
// writer's lock fails at once with SQLITE_BUSY instead of sleeping, so any overlap shows.
func openNoWait(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_txlock=immediate&_busy_timeout=0&_journal_mode=WAL&_synchronous=FULL")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(context.Background(), db, migrations.SQLite, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE gate_scratch (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	return db
}

// With one gate shared by the store and the other writers of the file, none of them ever meets
// another's write lock: with no busy timeout at all, concurrent appends and write transactions on
// other connections all succeed.
func TestWriteGateKeepsWritersApart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openNoWait(t, filepath.Join(t.TempDir(), "gate.db"))
	gate := sqlite.NewWriteGate()
	s, err := sqlite.New(db, &sqlite.Options{WriteGate: gate})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	const appenders, writers, rounds = 8, 3, 20
	var wg sync.WaitGroup
	errs := make(chan error, appenders*rounds+writers*rounds)
	for a := range appenders {
		wg.Go(func() {
			for i := range rounds {
				if _, err := s.Append(ctx, fmt.Sprintf("s-%d", a), eventstore.Any, event("t")); err != nil {
					errs <- fmt.Errorf("append %d/%d: %w", a, i, err)
				}
			}
		})
	}
	for w := range writers {
		wg.Go(func() {
			for i := range rounds {
				if err := gatedWrite(ctx, db, gate, w*rounds+i); err != nil {
					errs <- fmt.Errorf("writer %d/%d: %w", w, i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n); err != nil || n != appenders*rounds {
		t.Errorf("events: %d (%v), want %d", n, err, appenders*rounds)
	}
}

func gatedWrite(ctx context.Context, db *sql.DB, gate *sqlite.WriteGate, n int) error {
	if err := gate.Lock(ctx); err != nil {
		return err
	}
	defer gate.Unlock()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if _, err := tx.ExecContext(ctx, `INSERT INTO gate_scratch (n) VALUES ($1)`, n); err != nil {
		return err
	}
	return tx.Commit()
}

// The store holds the gate for the whole batch: while someone else holds it, an append waits.
func TestStoreWaitsForTheWriteGate(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "held.db"))
	gate := sqlite.NewWriteGate()
	s, err := sqlite.New(db, &sqlite.Options{WriteGate: gate})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := gate.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Append(ctx, "s", eventstore.NoStream, event("t"))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Append returned (%v) while the gate was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	gate.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("Append after the gate opened: %v", err)
	}
}
