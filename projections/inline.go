package projections

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Inline is implemented by a projection that can also be applied inside the event store's own append
// transaction (Runner.InTransaction), so that its read model is durable with the events' own fsync
// instead of a transaction of its own after them.
type Inline interface {
	Projection
	// ApplyInline applies envs, in order, through conn, which is inside the append's transaction. It
	// has Apply's meaning; an error leaves the events to the runner's own loop (which applies them
	// with Apply, and stops on a bad one as it always does). Statements prepared on conn may be kept
	// for the next call with the same conn.
	ApplyInline(ctx context.Context, conn *sql.Conn, envs []eventstore.Envelope) error
}

// inlineSavepoint encloses one projection's inline writes, so that a failure undoes them alone.
const inlineSavepoint = "projection_inline"

// InTransaction is the SQLite and PostgreSQL event stores' in-transaction hook (their
// SetInTransaction): it applies envs, the events a batch is about to commit, to every Inline
// projection that is exactly at before (the log's last position ahead of the batch), and moves its
// checkpoint to the batch's last event, all inside the append's transaction, each projection within
// its own savepoint. A projection that is behind, busy in its own loop, stopped on an event, or whose
// writes fail is left alone: its loop applies the events later, as it does for any projection. The
// returned function, called once the transaction has ended, records the new positions if it
// committed.
//
// The projection's loop (its step lock, taken here without waiting) is kept out until then, so an
// event is never applied twice; the checkpoint moves only from where the runner last stored it, so a
// rebuild or another runner that moved it meanwhile wins.
func (r *Runner) InTransaction(ctx context.Context, conn *sql.Conn, before eventstore.Position, envs []eventstore.Envelope) (after func(committed bool)) {
	if len(envs) == 0 {
		return nil
	}
	to := envs[len(envs)-1].Position
	var done []*proc
	for _, pr := range r.procs {
		ip, ok := pr.p.(Inline)
		if !ok || !pr.step.TryLock() {
			continue
		}
		r.mu.Lock()
		ready := r.running && pr.pos == before && pr.failure == nil && pr.retrying == nil
		from := pr.persisted
		r.mu.Unlock()
		if !ready {
			pr.step.Unlock()
			continue
		}
		if err := r.applyInline(ctx, conn, pr, ip, from, to, envs); err != nil {
			pr.step.Unlock()
			r.log.Debug("projection not applied in the append's transaction; its loop will", "projection", pr.name, "err", err)
			continue
		}
		done = append(done, pr)
	}
	if len(done) == 0 {
		return nil
	}
	return func(committed bool) {
		if committed {
			for _, pr := range done {
				r.afterApply(pr, envs)
			}
			now := time.Now()
			r.mu.Lock()
			for _, pr := range done {
				pr.pos, pr.persisted, pr.persistedAt = to, to, now
				pr.applied += uint64(len(envs))
			}
			r.notifyLocked()
			r.mu.Unlock()
		}
		for _, pr := range done {
			pr.step.Unlock()
		}
	}
}

// applyInline applies envs to one projection and moves its checkpoint from `from` to `to`, inside a
// savepoint that is rolled back if anything fails.
func (r *Runner) applyInline(ctx context.Context, conn *sql.Conn, pr *proc, ip Inline, from, to eventstore.Position, envs []eventstore.Envelope) (err error) {
	if _, err := conn.ExecContext(ctx, `SAVEPOINT `+inlineSavepoint); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
		if err != nil {
			if _, rerr := conn.ExecContext(ctx, `ROLLBACK TO `+inlineSavepoint); rerr != nil {
				// The transaction itself is gone (SQLite rolled it back): its COMMIT fails, and the
				// batch with it, so nothing of this is ever visible.
				err = fmt.Errorf("%w (and the savepoint could not be rolled back: %v)", err, rerr)
			}
		}
		if _, rerr := conn.ExecContext(ctx, `RELEASE `+inlineSavepoint); rerr != nil && err == nil {
			err = fmt.Errorf("release savepoint: %w", rerr)
		}
	}()
	if err := r.q.advance(ctx, conn, pr.name, from, to); err != nil {
		return err
	}
	return ip.ApplyInline(ctx, conn, envs)
}
