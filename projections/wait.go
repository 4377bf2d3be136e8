package projections

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/workbench/workbench/eventstore"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// WaitFor returns once every projection has applied every event up to pos (typically the position an
// Append returned, so the caller can read its own writes). It returns early with the projection's
// *Failure (errors.As) if one that still lacks pos has stopped on an event, and with ctx's error, naming
// the projections still behind, if ctx ends first. While the runner is not running, WaitFor waits.
//
// Every wait is bounded: by ctx's deadline, or, when ctx has none, by Options.WaitLimit (default
// DefaultWaitLimit) without any of the awaited projections moving, after which it fails with
// ErrWaitStalled. It does not depend on notifications alone: each projection loop rereads the log
// every Options.PollInterval, and retries a lost database connection within Options.MaxRetryDelay.
func (r *Runner) WaitFor(ctx context.Context, pos eventstore.Position) error {
	return r.tracedWait(ctx, "", r.procs, pos)
}

// WaitForProjection is WaitFor for the one projection named name.
func (r *Runner) WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error {
	pr, err := r.lookup(name)
	if err != nil {
		return err
	}
	return r.tracedWait(ctx, name, []*proc{pr}, pos)
}

// tracedWait is waitFor as a span of the caller's trace, "projections.wait_for" (name: the one
// projection waited for, "" for all).
func (r *Runner) tracedWait(ctx context.Context, name string, procs []*proc, pos eventstore.Position) error {
	ctx, span := otel.Tracer("github.com/workbench/workbench").Start(ctx, "projections.wait_for",
		trace.WithAttributes(attribute.Int64("workbench.commit_position", int64(pos.Commit)), attribute.String("workbench.projection", name)))
	defer span.End()
	err := r.waitFor(ctx, procs, pos)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "read models did not catch up")
	}
	return err
}

// DefaultWaitLimit is Options.WaitLimit's default.
const DefaultWaitLimit = time.Minute

// ErrWaitStalled is the error of a WaitFor without a deadline whose projections did not move for the
// wait limit. It is a context.DeadlineExceeded (errors.Is), which callers answer as a storage failure.
var ErrWaitStalled = fmt.Errorf("projections: no progress within the wait limit: %w", context.DeadlineExceeded)

func (r *Runner) waitFor(ctx context.Context, procs []*proc, pos eventstore.Position) error {
	var stalled <-chan time.Time
	var stall *time.Timer
	if _, ok := ctx.Deadline(); !ok && r.waitLimit > 0 {
		stall = time.NewTimer(r.waitLimit)
		defer stall.Stop()
		stalled = stall.C
	}
	last := make([]eventstore.Position, len(procs))
	for first := true; ; first = false {
		r.mu.Lock()
		var behind []string
		var failed error
		moved := false
		for i, pr := range procs {
			if last[i].Less(pr.pos) {
				moved = moved || !first
				last[i] = pr.pos
			}
			if !pr.pos.Less(pos) {
				continue
			}
			if pr.failure != nil {
				failed = pr.failure
				break
			}
			behind = append(behind, fmt.Sprintf("%q at %s", pr.name, pr.pos))
		}
		changed := r.changed
		r.mu.Unlock()
		if failed != nil {
			return fmt.Errorf("projections: wait for %s: %w", pos, failed)
		}
		if len(behind) == 0 {
			return nil
		}
		if moved && stall != nil {
			stall.Reset(r.waitLimit) // no stale tick survives a Reset (Go 1.23 timers)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("projections: wait for %s: still behind: %v: %w", pos, behind, ctx.Err())
		case <-stalled:
			return fmt.Errorf("projections: wait for %s: nothing moved for %s: still behind: %v: %w", pos, r.waitLimit, behind, ErrWaitStalled)
		case <-changed:
		}
	}
}

// Status reports every projection's progress, in the order the projections were given.
func (r *Runner) Status() []Status {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Status, 0, len(r.procs))
	for _, pr := range r.procs {
		n, oldest := r.window.behind(pr.pos)
		st := Status{
			Name:      pr.name,
			Position:  pr.pos,
			CaughtUp:  pr.caughtUp && n == 0,
			LagEvents: uint64(n),
			Applied:   pr.applied,
			Retrying:  pr.retrying,
		}
		if n > 0 {
			st.Lag = max(0, now.Sub(time.Unix(0, oldest)))
		}
		if pr.failure != nil {
			st.Err = pr.failure
		}
		out = append(out, st)
	}
	return out
}

// Ready returns nil once the runner is running, every projection has read to the end of the log since
// it started, and none has stopped on an event; otherwise an error that says which projection is not
// ready and why. It suits a readiness probe (/readyz).
func (r *Runner) Ready(ctx context.Context) error {
	r.mu.Lock()
	running := r.running
	r.mu.Unlock()
	if !running {
		return errors.New("projections are not running")
	}
	status := r.Status()
	for _, st := range status {
		if st.Err != nil {
			return st.Err
		}
	}
	for _, st := range status {
		r.mu.Lock()
		caughtUp := r.byName[st.Name].caughtUp
		r.mu.Unlock()
		if !caughtUp {
			return fmt.Errorf("projection %q is catching up: at %s, at least %d events behind", st.Name, st.Position, st.LagEvents)
		}
	}
	return nil
}
