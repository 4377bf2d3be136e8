package projections_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// With the runner installed as the SQLite store's in-transaction hook, concurrent appends are applied
// exactly once, whether in the append's transaction or by the projection's own loop (when it was busy
// at that moment), the checkpoint ends at the last event, and AfterApply has seen every event by the
// time WaitFor reports it applied.
func TestInlineExactlyOnce(t *testing.T) {
	b := openSQLite(t)
	ctx := testCtx(t)
	ledger := b.ledger(t, "inline")
	r := b.runner(t, &projections.Options{PollInterval: time.Hour}, ledger)
	b.store.(*sqlite.Store).SetInTransaction(r.InTransaction)
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
	checkLedger(ctx, t, b.db, "inline", &w)
	// AfterApply saw every event before its position showed in WaitFor.
	if n := seen.Load(); n != int64(w.count) {
		t.Errorf("AfterApply saw %d events by the time WaitFor returned, want %d", n, w.count)
	}
	if st := statusOf(t, r, "inline"); st.Position != w.last || st.Err != nil {
		t.Errorf("status = %+v; want at %s with no failure", st, w.last)
	}
	t.Logf("%d of the batches applied in the append's transaction", ledger.InlineBatches())
	// Its statements (savepoint, release, rollback, checkpoint) were prepared once, on the store's
	// writer connection, not for every batch.
	if n, want := projections.InlinePrepared(r), 4; ledger.InlineBatches() > 0 && n != want {
		t.Errorf("InTransaction prepared %d statements for %d batches, want %d (once)", n, ledger.InlineBatches(), want)
	}
}

// InTransaction applies a batch inside the caller's transaction and moves the checkpoint with it;
// the new position counts once the transaction commits, not when it rolls back; a projection that is
// not exactly at the batch's start is left alone; a projection that fails leaves nothing of its own
// writes while the rest of the transaction goes on.
func TestInTransaction(t *testing.T) {
	b := openSQLite(t)
	ctx := testCtx(t)
	ledger := b.ledger(t, "inline")
	r := b.runner(t, &projections.Options{PollInterval: time.Hour}, ledger)
	start(t, r)
	if _, err := b.db.ExecContext(ctx, `CREATE TABLE outer_rows (n INTEGER)`); err != nil {
		t.Fatal(err)
	}
	conn, err := b.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	envs := func(first uint64, evs ...eventstore.EventData) []eventstore.Envelope {
		out := make([]eventstore.Envelope, len(evs))
		for i, ev := range evs {
			p := eventstore.Position{Commit: first + uint64(i), Prepare: first + uint64(i)}
			out[i] = eventstore.Envelope{ID: ev.ID, Stream: "account-x", Version: int64(p.Commit), Position: p, Type: ev.Type, SchemaVersion: 1, Data: ev.Data, Metadata: ev.Metadata}
		}
		return out
	}
	pos := func(n uint64) eventstore.Position { return eventstore.Position{Commit: n, Prepare: n} }
	// inTx runs one transaction: a row of its own, then the hook; it commits or rolls back.
	inTx := func(before eventstore.Position, batch []eventstore.Envelope, commit bool) (applied bool) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO outer_rows (n) VALUES ($1)`, batch[0].Position.Commit); err != nil {
			t.Fatal(err)
		}
		after := r.InTransaction(ctx, conn, before, batch)
		end := `ROLLBACK`
		if commit {
			end = `COMMIT`
		}
		if _, err := conn.ExecContext(ctx, end); err != nil {
			t.Fatal(err)
		}
		if after != nil {
			after(commit)
		}
		return after != nil
	}
	count := func(query string) int {
		t.Helper()
		var n int
		if err := b.db.QueryRowContext(ctx, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Until the runner has loaded the checkpoint and its loop has read the (empty) log and let go of
	// its step, the hook leaves the batch alone and writes nothing, so asking again is harmless.
	first := envs(1, projectiontest.Deposit("x", 5), projectiontest.Deposit("x", 7))
	for !inTx(eventstore.Start, first, true) {
		if _, err := b.db.ExecContext(ctx, `DELETE FROM outer_rows`); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	if st := statusOf(t, r, "inline"); st.Position != pos(2) {
		t.Fatalf("after a committed batch the projection is at %s, want 2", st.Position)
	}
	if n := count(`SELECT COUNT(*) FROM inline_applied`); n != 2 {
		t.Fatalf("%d events applied, want 2", n)
	}
	if n := count(`SELECT COUNT(*) FROM projection_checkpoints WHERE name = 'inline' AND commit_pos = '00000000000000000002'`); n != 1 {
		t.Fatalf("stored checkpoint not at 2")
	}

	// Rolled back: nothing of it stays, in the database or in memory. The runner's loop may hold its
	// step for a moment (it polls the log), and then the hook leaves the batch alone; a rolled-back
	// attempt leaves nothing, so asking again is harmless (bounded).
	for deadline := time.Now().Add(10 * time.Second); !inTx(pos(2), envs(3, projectiontest.Deposit("x", 1)), false); {
		if time.Now().After(deadline) {
			t.Fatal("the hook left a batch at the projection's position alone for 10 s")
		}
		time.Sleep(time.Millisecond)
	}
	if st := statusOf(t, r, "inline"); st.Position != pos(2) {
		t.Errorf("after a rolled-back batch the projection is at %s, want 2", st.Position)
	}
	if n := count(`SELECT COUNT(*) FROM inline_applied`); n != 2 {
		t.Errorf("%d events applied after a rollback, want 2", n)
	}

	// Not at the batch's start (events 3 and 4 are missing): left to the loop.
	if inTx(pos(4), envs(5, projectiontest.Deposit("x", 1)), true) {
		t.Error("the hook applied a batch that does not follow the projection's position")
	}

	// The projection fails: its writes are undone, the transaction's own row commits, and the
	// projection stays where it was.
	ledger.SetHook(func(_ context.Context, env eventstore.Envelope) error {
		if env.Position.Commit == 4 {
			return context.Canceled // any error
		}
		return nil
	})
	if inTx(pos(2), envs(3, projectiontest.Deposit("x", 1), projectiontest.Deposit("x", 2)), true) {
		t.Error("the hook reports a failed projection as applied")
	}
	ledger.SetHook(nil)
	if n := count(`SELECT COUNT(*) FROM inline_applied`); n != 2 {
		t.Errorf("%d events applied after a failed batch, want 2", n)
	}
	if n := count(`SELECT COUNT(*) FROM outer_rows WHERE n = 3`); n != 1 {
		t.Errorf("the transaction's own row did not commit around the failed projection")
	}
	if st := statusOf(t, r, "inline"); st.Position != pos(2) || st.Err != nil {
		t.Errorf("after a failed inline batch: %+v; want at 2 with no failure", st)
	}
}
