package projections_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
)

// waitResult waits at most bound for a WaitFor started in the background and fails the test naming
// what it waited for.
func waitResult(t *testing.T, done <-chan error, bound time.Duration, what string) time.Duration {
	t.Helper()
	start := time.Now()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	case <-time.After(bound):
		t.Fatalf("%s: still waiting %s later", what, bound)
	}
	return time.Since(start)
}

// A request that waits for the read models while PostgreSQL restarts under them gets its answer once
// the server is back: the projection's batch, cut off by the restart, is retried on a new connection
// (a lost connection is no fault of the event), the listener reconnects, and a wait after the restart
// is woken too. The runner runs with the server's default intervals.
func TestWaitSurvivesPostgresRestart(t *testing.T) {
	cluster := testenv.NewCluster(t)
	ctx := testCtx(t)
	{
		db, err := sql.Open("pgx", cluster.URL())
		if err != nil {
			t.Fatal(err)
		}
		_, err = migrations.Apply(ctx, db, migrations.Postgres, nil)
		db.Close()
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	b := pgReplica(t, cluster.URL())
	ledger := b.ledger(t, "restart")
	entered, release := make(chan struct{}), make(chan struct{})
	paused := false
	ledger.SetHook(func(ctx context.Context, env eventstore.Envelope) error {
		if paused {
			return nil
		}
		paused = true
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	r := b.runner(t, &projections.Options{PollInterval: time.Second}, ledger)
	start(t, r)

	var w workload
	appendMovements(ctx, t, b.store, &w, 1, 1, 1)
	waited := make(chan error, 1)
	go func() { waited <- r.WaitFor(context.Background(), w.last) }()
	select {
	case <-entered:
	case <-time.After(30 * time.Second):
		t.Fatal("the projection never began to apply the first event")
	}

	// The server restarts while the batch is in its transaction and the request waits.
	cluster.Stop()
	close(release)
	cluster.Start()
	took := waitResult(t, waited, 20*time.Second, "the wait begun before the restart")
	t.Logf("the wait begun before the restart completed %s after it", took.Round(time.Millisecond))

	// After the restart, new appends are applied and their waits woken.
	appendMovements(ctx, t, b.store, &w, 4, 1, 2)
	go func() { waited <- r.WaitFor(context.Background(), w.last) }()
	waitResult(t, waited, 20*time.Second, "a wait after the restart")
	checkLedger(ctx, t, b.db, "restart", &w)
}

// A wait whose context has no deadline is bounded by the runner's WaitLimit: when the projection it
// waits for does not move for that long, WaitFor fails with ErrWaitStalled naming it, instead of
// hanging.
func TestWaitWithoutDeadlineIsBounded(t *testing.T) {
	b := openSQLite(t)
	ledger := b.ledger(t, "stuck")
	release := make(chan struct{})
	defer close(release)
	ledger.SetHook(func(ctx context.Context, env eventstore.Envelope) error {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	})
	r := b.runner(t, &projections.Options{WaitLimit: 200 * time.Millisecond}, ledger)
	start(t, r)
	var w workload
	appendMovements(testCtx(t), t, b.store, &w, 1, 1, 1)
	waited := make(chan error, 1)
	go func() { waited <- r.WaitFor(context.Background(), w.last) }()
	select {
	case err := <-waited:
		if !errors.Is(err, projections.ErrWaitStalled) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"stuck"`) {
			t.Fatalf("WaitFor on a stuck projection = %v, want ErrWaitStalled naming it", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("WaitFor without a deadline on a stuck projection still waits 30 s later")
	}
}
