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
	st, err := r.inlineStatements(ctx, conn)
	if err != nil {
		return err
	}
	if _, err := st.savepoint.ExecContext(ctx); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
		if err != nil {
			if _, rerr := st.rollbackTo.ExecContext(ctx); rerr != nil {
				// The transaction itself is gone (SQLite rolled it back): its COMMIT fails, and the
				// batch with it, so nothing of this is ever visible.
				err = fmt.Errorf("%w (and the savepoint could not be rolled back: %v)", err, rerr)
			}
		}
		if _, rerr := st.release.ExecContext(ctx); rerr != nil && err == nil {
			err = fmt.Errorf("release savepoint: %w", rerr)
		}
	}()
	if err := r.q.advanceWith(ctx, st.advance, pr.name, from, to); err != nil {
		return err
	}
	return ip.ApplyInline(ctx, conn, envs)
}

// inlineStmts are InTransaction's statements, prepared on the connection the store writes batches on
// and kept from one batch to the next while that connection lasts (SQLite would otherwise parse each
// of them again for every projection of every batch).
type inlineStmts struct {
	conn                                    *sql.Conn
	savepoint, rollbackTo, release, advance *sql.Stmt
	// prepared counts the statements prepared so far (tests read it).
	prepared int
}

// inlineStatements returns the statements prepared on conn, preparing them when conn is not the one
// they were last prepared on (the first batch, or the store's writer connection was replaced).
func (r *Runner) inlineStatements(ctx context.Context, conn *sql.Conn) (*inlineStmts, error) {
	r.inlineMu.Lock()
	defer r.inlineMu.Unlock()
	st := &r.inline
	if st.conn == conn && st.advance != nil {
		return st, nil
	}
	st.close()
	for _, s := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&st.savepoint, `SAVEPOINT ` + inlineSavepoint},
		{&st.rollbackTo, `ROLLBACK TO ` + inlineSavepoint},
		{&st.release, `RELEASE ` + inlineSavepoint},
		{&st.advance, r.q.advanceSQL},
	} {
		stmt, err := conn.PrepareContext(ctx, s.sql)
		if err != nil {
			st.close()
			return nil, fmt.Errorf("prepare %q: %w", s.sql, err)
		}
		*s.stmt = stmt
		st.prepared++
	}
	st.conn = conn
	return st, nil
}

// close closes the statements (those of a connection that may be gone: closing them then fails
// harmlessly) and forgets the connection.
func (st *inlineStmts) close() {
	for _, s := range []**sql.Stmt{&st.savepoint, &st.rollbackTo, &st.release, &st.advance} {
		if *s != nil {
			(*s).Close() //nolint:errcheck // see above
			*s = nil
		}
	}
	st.conn = nil
}
