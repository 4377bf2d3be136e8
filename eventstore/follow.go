package eventstore

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Notifier wakes readers when new events may have committed. Backends call Broadcast after each commit
// they make; readers wait on the channel Wait returns, taken before they read.
type Notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

// NewNotifier returns a Notifier with no waiters.
func NewNotifier() *Notifier { return &Notifier{ch: make(chan struct{})} }

// Wait returns a channel closed at the next Broadcast.
func (n *Notifier) Wait() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ch
}

// Broadcast wakes every current waiter.
func (n *Notifier) Broadcast() {
	n.mu.Lock()
	close(n.ch)
	n.ch = make(chan struct{})
	n.mu.Unlock()
}

// FollowOptions tune Follow; nil means defaults.
type FollowOptions struct {
	// BatchSize is how many events one ReadAll fetches (default 500).
	BatchSize int
	// PollInterval is how often Follow re-reads even without a wake-up, for commits made by other
	// processes or held back behind a slower transaction (default 200ms).
	PollInterval time.Duration
	// Closed, when set, is closed when the store closes; Follow then returns ErrClosed.
	Closed <-chan struct{}
}

// Follow implements Subscribe for any backend that has ReadAll and a Notifier: it reads from `from`
// until caught up, then waits for a wake-up (or the poll interval) and reads again, calling fn for each
// event exactly once, in order. It returns ctx.Err() when ctx ends, fn's error as is, and ErrClosed when
// opts.Closed is closed: at the start, while waiting, or when a read fails after it closed. Backends return
// what Follow returns, so the closed-store mapping lives here once.
func Follow(ctx context.Context, readAll func(ctx context.Context, from Position, limit int) ([]Envelope, error), wake *Notifier, from Position, fn func(Envelope) error, opts *FollowOptions) error {
	batch, poll := 500, 200*time.Millisecond
	var closed <-chan struct{}
	if opts != nil {
		if opts.BatchSize > 0 {
			batch = opts.BatchSize
		}
		if opts.PollInterval > 0 {
			poll = opts.PollInterval
		}
		closed = opts.Closed
	}
	if isClosed(closed) {
		return ErrClosed
	}
	timer := time.NewTimer(poll)
	defer timer.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var woken <-chan struct{}
		if wake != nil {
			woken = wake.Wait()
		}
		envs, err := readAll(ctx, from, batch)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if isClosed(closed) || errors.Is(err, ErrClosed) {
				// A read that fails because the store closed under it (a closed pool, a closed
				// file) reports the close, not the backend's error for it.
				return ErrClosed
			}
			return err
		}
		for _, env := range envs {
			if err := fn(env); err != nil {
				return err
			}
			from = env.Position
		}
		if len(envs) == batch {
			continue
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(poll)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-closed:
			return ErrClosed
		case <-woken:
		case <-timer.C:
		}
	}
}

// isClosed reports whether closed (nil: never) is closed.
func isClosed(closed <-chan struct{}) bool {
	select {
	case <-closed:
		return true
	default:
		return false
	}
}
