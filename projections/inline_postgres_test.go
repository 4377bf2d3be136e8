package projections_test

import (
	"database/sql"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// pgReplica is one replica on a shared PostgreSQL database: its own pool and event store, with the
// read models in the shared database.
func pgReplica(t *testing.T, url string) backend {
	t.Helper()
	ctx := testCtx(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatalf("pool: %v", err)
	}
	t.Cleanup(pool.Close)
	store, err := postgres.New(ctx, pool, nil)
	if err != nil {
		t.Fatalf("postgres store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return backend{dialect: migrations.Postgres, store: store, db: db}
}

// migratedPostgres returns the URL of a fresh, migrated PostgreSQL database (the test skips without
// one).
func migratedPostgres(t *testing.T) string {
	t.Helper()
	url := testenv.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	defer db.Close()
	if _, err := migrations.Apply(testCtx(t), db, migrations.Postgres, nil); err != nil {
		t.Fatalf("migrate postgres: %v", err)
	}
	return url
}

// With the runner installed as the PostgreSQL store's in-transaction hook, concurrent appends are
// applied exactly once, in the append's transaction or by the projection's loop, and AfterApply has
// seen every event by the time WaitFor reports it. Once the runner is idle, an append is applied in
// its own transaction (a transaction still running below it, autovacuum's say, may leave one to the
// loop, so the test appends until one is).
func TestInlinePostgresExactlyOnce(t *testing.T) {
	b := pgReplica(t, migratedPostgres(t))
	ctx := testCtx(t)
	ledger := b.ledger(t, "inline")
	r := b.runner(t, &projections.Options{PollInterval: time.Hour}, ledger)
	b.store.(*postgres.Store).SetInTransaction(r.InTransaction)
	var seen atomic.Int64
	if err := r.AfterApply("inline", func(envs []eventstore.Envelope) { seen.Add(int64(len(envs))) }); err != nil {
		t.Fatal(err)
	}
	start(t, r)
	var w workload
	appendMovements(ctx, t, b.store, &w, 480, 2, 8)
	if err := r.WaitFor(ctx, w.last); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of the batches applied in the append's transaction under concurrent appends", ledger.InlineBatches())

	before := ledger.InlineBatches()
	for i := 0; i < 50 && ledger.InlineBatches() == before; i++ {
		appendMovements(ctx, t, b.store, &w, 1, 1, 1)
		if err := r.WaitFor(ctx, w.last); err != nil {
			t.Fatal(err)
		}
	}
	if ledger.InlineBatches() == before {
		t.Errorf("no single append to an idle runner was applied in the append's transaction")
	}
	checkLedger(ctx, t, b.db, "inline", &w)
	if n := seen.Load(); n != int64(w.count) {
		t.Errorf("AfterApply saw %d events by the time WaitFor returned, want %d", n, w.count)
	}
	if st := statusOf(t, r, "inline"); st.Position != w.last || st.Err != nil {
		t.Errorf("status = %+v; want at %s with no failure", st, w.last)
	}
}

// Three replicas append to one database, each with its runner installed as its store's hook, all
// keeping the same read model (one checkpoint row): every event is applied exactly once, whichever
// replica applies it and however (in an append's transaction or in a loop), and every runner reaches
// the last event.
func TestInlinePostgresReplicas(t *testing.T) {
	url := migratedPostgres(t)
	ctx := testCtx(t)
	var replicas []backend
	var runners []*projections.Runner
	var ledgers []*projectiontest.Ledger
	for range 3 {
		b := pgReplica(t, url)
		l := b.ledger(t, "shared")
		r := b.runner(t, &projections.Options{PollInterval: 20 * time.Millisecond}, l)
		b.store.(*postgres.Store).SetInTransaction(r.InTransaction)
		start(t, r)
		replicas, runners, ledgers = append(replicas, b), append(runners, r), append(ledgers, l)
	}
	var w workload
	var wg sync.WaitGroup
	for _, b := range replicas {
		// The replicas' appenders share the accounts' streams (Any appends), so they also wait for
		// each other's stream locks.
		wg.Go(func() { appendMovements(ctx, t, b.store, &w, 240, 2, 4) })
	}
	wg.Wait()
	for _, r := range runners {
		if err := r.WaitFor(ctx, w.last); err != nil {
			t.Fatal(err)
		}
	}
	checkLedger(ctx, t, replicas[0].db, "shared", &w)
	var inline int64
	for _, l := range ledgers {
		inline += l.InlineBatches()
	}
	t.Logf("%d batches applied in an append's transaction", inline)
}
