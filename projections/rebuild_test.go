package projections_test

import (
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
)

// Rebuild writes under the write gate too: while someone else holds it the projection's tables are
// not emptied; once it opens the rebuild completes. And on a database with no busy timeout (a writer
// that meets another's lock fails at once), rebuilds racing eight appenders never meet the store's
// lock.
func TestRebuildTakesTheWriteGate(t *testing.T) {
	t.Run("waits for the gate", func(t *testing.T) {
		ctx := testCtx(t)
		b := openSQLite(t)
		gate := sqlite.NewWriteGate()
		ledger := b.ledger(t, "gated")
		r := b.runner(t, &projections.Options{WriteGate: gate}, ledger)
		w := &workload{}
		appendMovements(ctx, t, b.store, w, 60, 5, 2)
		if err := r.Rebuild(ctx, "gated"); err != nil {
			t.Fatal(err)
		}
		if err := gate.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- r.Rebuild(ctx, "gated") }()
		time.Sleep(200 * time.Millisecond)
		select {
		case err := <-done:
			gate.Unlock()
			t.Fatalf("Rebuild returned (%v) while the write gate was held", err)
		default:
		}
		var rows int
		if err := b.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM gated_applied`).Scan(&rows); err != nil {
			gate.Unlock()
			t.Fatal(err)
		}
		gate.Unlock()
		if rows != w.count {
			t.Errorf("the tables held %d events while the gate was held, want all %d (no reset)", rows, w.count)
		}
		if err := <-done; err != nil {
			t.Fatalf("Rebuild after the gate opened: %v", err)
		}
		checkLedger(ctx, t, b.db, "gated", w)
	})

	t.Run("no busy timeout", func(t *testing.T) {
		ctx := testCtx(t)
		path := filepath.Join(t.TempDir(), "gate.db")
		db, err := sql.Open("sqlite", path+"?_txlock=immediate&_busy_timeout=0&_journal_mode=WAL&_synchronous=FULL")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
			t.Fatal(err)
		}
		gate := sqlite.NewWriteGate()
		store, err := sqlite.New(db, &sqlite.Options{WriteGate: gate})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		b := backend{dialect: migrations.SQLite, store: store, db: db}
		ledger := b.ledger(t, "racing")
		r := b.runner(t, &projections.Options{WriteGate: gate, BatchSize: 16}, ledger)

		w := &workload{}
		appending := make(chan struct{})
		go func() {
			defer close(appending)
			appendMovements(ctx, t, store, w, 800, 2, 8)
		}()
		rebuilds := 0
		for running := true; running; rebuilds++ {
			select {
			case <-appending:
				running = false
			default:
			}
			if err := r.Rebuild(ctx, "racing"); err != nil {
				t.Fatalf("Rebuild %d while appending: %v", rebuilds+1, err)
			}
		}
		if rebuilds < 2 {
			t.Logf("only %d rebuilds raced the appenders", rebuilds)
		}
		checkLedger(ctx, t, db, "racing", w)
	})
}
