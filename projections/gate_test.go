package projections_test

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// lockedBuffer is a log destination safe for the runner's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// With the write gate shared by the store and the runner, the runner's transactions never meet the
// store's write lock: on a database with no busy timeout at all (a writer that meets another's lock
// fails at once with SQLITE_BUSY), three projections follow eight concurrent appenders without a
// single retry, and every event is applied once.
func TestRunnerSharesTheWriteGate(t *testing.T) {
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

	var ledgers []projections.Projection
	for _, name := range []string{"gate_a", "gate_b", "gate_c"} {
		ledgers = append(ledgers, b.ledger(t, name))
	}
	logs := &lockedBuffer{}
	r := b.runner(t, &projections.Options{
		WriteGate: gate, BatchSize: 7,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, ledgers...)
	start(t, r)

	w := &workload{}
	appendMovements(ctx, t, store, w, 400, 3, 8)
	if err := r.WaitFor(ctx, w.last); err != nil {
		t.Fatalf("WaitFor: %v", err)
	}
	for _, l := range ledgers {
		checkLedger(ctx, t, db, l.Name(), w)
	}
	if got := logs.String(); strings.Contains(got, "retrying") {
		t.Errorf("the runner retried (met another writer's lock):\n%s", got)
	}
}

// While someone else holds the gate, the runner applies nothing; it catches up once the gate opens.
func TestRunnerWaitsForTheWriteGate(t *testing.T) {
	ctx := testCtx(t)
	b := openSQLite(t)
	gate := sqlite.NewWriteGate()
	r := b.runner(t, &projections.Options{WriteGate: gate}, b.ledger(t, "held"))
	start(t, r)
	if err := r.WaitFor(ctx, eventstore.Start); err != nil {
		t.Fatal(err)
	}
	if err := gate.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	pos, err := b.store.Append(ctx, "account-x", eventstore.Any, projectiontest.Deposit("x", 5))
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = r.WaitFor(short, pos)
	cancel()
	if err == nil {
		t.Fatal("the runner applied an event while the write gate was held")
	}
	gate.Unlock()
	if err := r.WaitFor(ctx, pos); err != nil {
		t.Fatalf("WaitFor after the gate opened: %v", err)
	}
}
