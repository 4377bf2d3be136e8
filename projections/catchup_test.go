package projections_test

import (
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// CatchUp knows no position: after it returns, the read model holds every event appended before the
// call, whoever appended it (the runner only wakes on notifications, never polls).
func TestCatchUpReadsToTheEndOfTheLog(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		ledger := b.ledger(t, "ledger")
		r := b.runner(t, &projections.Options{PollInterval: time.Hour}, ledger)
		start(t, r)
		var want int64
		for i := range 20 {
			want += int64(i + 1)
			if _, err := b.store.Append(ctx, "account-catchup", eventstore.Any, projectiontest.Deposit("catchup", int64(i+1))); err != nil {
				t.Fatal(err)
			}
			if err := r.CatchUp(ctx, "ledger"); err != nil {
				t.Fatalf("CatchUp: %v", err)
			}
			var got int64
			if err := b.db.QueryRowContext(ctx, `SELECT balance FROM ledger_accounts WHERE account = 'catchup'`).Scan(&got); err != nil {
				t.Fatalf("read after CatchUp: %v", err)
			}
			if got != want {
				t.Fatalf("after append %d and CatchUp, balance %d, want %d", i, got, want)
			}
		}
		// Caught up already: it returns at once. An unknown projection is an error.
		if err := r.CatchUp(ctx, "ledger"); err != nil {
			t.Fatalf("CatchUp when caught up: %v", err)
		}
		if err := r.CatchUp(ctx, "nope"); err == nil {
			t.Fatal("CatchUp of an unknown projection succeeded")
		}
	})
}
