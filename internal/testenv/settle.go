package testenv

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Settle waits until store's log shows every event db's events table holds. On
// PostgreSQL a reader sees a committed event only once no transaction below it is still open (the
// gap-free read, DESIGN.md), which may be a moment after its append answered; on SQLite it returns at
// once. It fails the test when the log still falls short after 20 seconds.
func Settle(tb testing.TB, db *sql.DB, store eventstore.Store) {
	tb.Helper()
	ctx := context.Background()
	var committed int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&committed); err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		envs, err := store.ReadAll(ctx, eventstore.Start, committed+1)
		if err != nil {
			tb.Fatal(err)
		}
		if len(envs) >= committed {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the log shows %d of the %d committed events", len(envs), committed)
		}
	}
}
