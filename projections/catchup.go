package projections

import (
	"context"
	"fmt"
)

// catchUpPage is how many events CatchUp reads at a time looking for the end of the log.
const catchUpPage = 1000

// CatchUp waits until the projection name has applied every event committed before the call: it reads
// the log from the projection's position to its end, then waits for the projection to reach that end
// (bounded by ctx). A replica uses it when a read misses something another replica may have just
// written (an OAuth code issued by another replica and redeemed here): that write was acknowledged, so
// it is committed, and once CatchUp returns the read model holds it. It costs one read of the log's
// tail, usually empty.
func (r *Runner) CatchUp(ctx context.Context, name string) error {
	pr, err := r.lookup(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	from := pr.pos
	r.mu.Unlock()
	head := from
	for {
		page, err := r.store.ReadAll(ctx, head, catchUpPage)
		if err != nil {
			return fmt.Errorf("projections: catch up %q: read the log: %w", name, err)
		}
		if len(page) > 0 {
			head = page[len(page)-1].Position
		}
		if len(page) < catchUpPage {
			break
		}
	}
	if head == from {
		return nil
	}
	// Wake the projection's loop: this read saw the log up to head, so its next read does too. The
	// loop's own wake-up can come before an event is visible to its read, which then finds nothing
	// and would sleep until the next poll (a fresh-clone CI run waited out its two minutes so on
	// PostgreSQL).
	select {
	case pr.wake <- struct{}{}:
	default:
	}
	return r.WaitForProjection(ctx, name, head)
}
