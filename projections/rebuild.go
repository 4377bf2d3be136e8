package projections

import (
	"context"
	"fmt"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Rebuild empties the named projection's tables and resets its checkpoint to the start of the log, in
// one transaction, then replays the whole log into it and returns once it has caught up. An empty name
// rebuilds every projection, one after the other. A projection that stops on an event during the
// replay makes Rebuild return its *Failure.
//
// Rebuild does not need Run, so `workbench projections rebuild` can call it on its own. While Run is
// running in the same process, the projection's loop is paused for the duration and picks up where the
// rebuild left it; a runner in another process notices its checkpoint moved and follows along without
// applying anything twice. Readers see the projection's tables empty and then filling up meanwhile.
func (r *Runner) Rebuild(ctx context.Context, name string) error {
	procs := r.procs
	if name != "" {
		pr, err := r.lookup(name)
		if err != nil {
			return err
		}
		procs = []*proc{pr}
	}
	for _, pr := range procs {
		if err := r.rebuild(ctx, pr); err != nil {
			return fmt.Errorf("projections: rebuild %q: %w", pr.name, err)
		}
	}
	return nil
}

func (r *Runner) rebuild(ctx context.Context, pr *proc) error {
	pr.step.Lock()
	defer pr.step.Unlock()
	began := time.Now()
	if _, err := r.loadCheckpoint(ctx, pr.name); err != nil {
		return err
	}
	if err := r.reset(ctx, pr); err != nil {
		return err
	}
	r.mu.Lock()
	pr.pos, pr.persisted, pr.persistedAt, pr.caughtUp, pr.failure, pr.retrying = eventstore.Start, eventstore.Start, time.Now(), false, nil, nil
	applied := pr.applied
	r.notifyLocked()
	r.mu.Unlock()
	r.log.Info("projection reset; replaying the log", "projection", pr.name)

	for {
		more, err := r.step(ctx, pr)
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	r.mu.Lock()
	n, pos := pr.applied-applied, pr.pos
	r.mu.Unlock()
	r.log.Info("projection rebuilt", "projection", pr.name, "events", n, "position", pos.String(), "took", time.Since(began).String())
	// If the loop had stopped on an event, the rebuild got past it: let the loop go on.
	select {
	case pr.resume <- struct{}{}:
	default:
	}
	return nil
}

// reset empties pr's tables and moves its checkpoint to Start in one transaction, under the write
// gate like every other write of the runner.
func (r *Runner) reset(ctx context.Context, pr *proc) error {
	unlock, err := r.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock() // after the deferred Rollback below
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := pr.p.Reset(ctx, tx); err != nil {
		return fmt.Errorf("reset tables: %w", err)
	}
	if _, err := tx.ExecContext(ctx, r.q.reset, pr.name, encodePos(0)); err != nil {
		return fmt.Errorf("reset checkpoint: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit reset: %w", err)
	}
	return nil
}
