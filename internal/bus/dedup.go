package bus

import (
	"container/list"
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// DefaultDedupSize is how many event ids a Dedup remembers when NewDedup is given no size.
const DefaultDedupSize = 10_000

// Dedup remembers the most recently handled event ids, up to a bound, so a consumer can drop a
// message the bus delivers twice (delivery is at least once: after a nack, an ack lost in a crash,
// or a relay that republishes after taking over). The least recently seen id is forgotten first. It
// is safe for concurrent use.
type Dedup struct {
	mu    sync.Mutex
	max   int
	order *list.List // of uuid.UUID, most recent at the front
	ids   map[uuid.UUID]*list.Element
}

// NewDedup returns a Dedup that remembers up to size ids (DefaultDedupSize when size <= 0).
func NewDedup(size int) *Dedup {
	if size <= 0 {
		size = DefaultDedupSize
	}
	return &Dedup{max: size, order: list.New(), ids: make(map[uuid.UUID]*list.Element, size)}
}

// Seen reports whether id was marked and is still remembered, and makes it the most recent.
func (d *Dedup) Seen(id uuid.UUID) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.ids[id]; ok {
		d.order.MoveToFront(e)
		return true
	}
	return false
}

// Mark remembers id, forgetting the least recently seen id when the bound is reached.
func (d *Dedup) Mark(id uuid.UUID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.ids[id]; ok {
		d.order.MoveToFront(e)
		return
	}
	d.ids[id] = d.order.PushFront(id)
	for d.order.Len() > d.max {
		oldest := d.order.Back()
		d.order.Remove(oldest)
		delete(d.ids, oldest.Value.(uuid.UUID))
	}
}

// Len is how many ids are remembered.
func (d *Dedup) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.order.Len()
}

// Handler wraps next so that an event already handled is acknowledged without calling next again.
// An id is marked only once next succeeds, so a failed delivery is still retried.
func (d *Dedup) Handler(next Handler) Handler {
	return func(ctx context.Context, env eventstore.Envelope) error {
		if d.Seen(env.ID) {
			return nil
		}
		if err := next(ctx, env); err != nil {
			return err
		}
		d.Mark(env.ID)
		return nil
	}
}
