package memory

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// Options tune a Store; nil means defaults.
type Options struct {
	// OnCommit, when set, is called once per append that wrote events, with the new envelopes, in
	// commit order and before Append returns. It may read the store but must not append to it.
	OnCommit func([]eventstore.Envelope)
}

// Store is an in-memory event log.
type Store struct {
	onCommit func([]eventstore.Envelope)
	notify   *eventstore.Notifier
	closed   chan struct{}
	once     sync.Once

	commitMu sync.Mutex // orders appends together with their OnCommit calls

	mu      sync.RWMutex
	isShut  bool
	log     []eventstore.Envelope // log[i] is at position i+1
	streams map[string][]int      // stream -> indexes into log, in version order
	ids     map[uuid.UUID]int     // event id -> index into log
}

var _ eventstore.Store = (*Store)(nil)

// New returns an empty store.
func New(opts *Options) *Store {
	s := &Store{
		notify:  eventstore.NewNotifier(),
		closed:  make(chan struct{}),
		streams: map[string][]int{},
		ids:     map[uuid.UUID]int{},
	}
	if opts != nil {
		s.onCommit = opts.OnCommit
	}
	return s
}

func position(index int) eventstore.Position {
	p := uint64(index) + 1
	return eventstore.Position{Commit: p, Prepare: p}
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return eventstore.Position{}, err
	}
	if err := ctx.Err(); err != nil {
		return eventstore.Position{}, err
	}
	s.commitMu.Lock()
	defer s.commitMu.Unlock()

	s.mu.Lock()
	if s.isShut {
		s.mu.Unlock()
		return eventstore.Position{}, eventstore.ErrClosed
	}
	if pos, done, err := s.retried(stream, expected, events); done || err != nil {
		s.mu.Unlock()
		return pos, err
	}
	current := int64(len(s.streams[stream]))
	if !expected.Matches(current) {
		s.mu.Unlock()
		return eventstore.Position{}, &eventstore.ConflictError{Stream: stream, Expected: expected, Actual: current}
	}
	written := make([]eventstore.Envelope, len(events))
	for i, ev := range events {
		idx := len(s.log)
		env := eventstore.Envelope{
			ID:            ev.ID,
			Stream:        stream,
			Version:       current + int64(i) + 1,
			Position:      position(idx),
			Type:          ev.Type,
			SchemaVersion: ev.SchemaVersion,
			Data:          append([]byte(nil), ev.Data...),
			Metadata:      ev.Metadata,
		}
		s.log = append(s.log, env)
		s.streams[stream] = append(s.streams[stream], idx)
		s.ids[ev.ID] = idx
		written[i] = clone(env)
	}
	s.mu.Unlock()

	if s.onCommit != nil {
		s.onCommit(written)
	}
	s.notify.Broadcast()
	return written[len(written)-1].Position, nil
}

// retried applies eventstore.IdempotentRetry against the log: done when the append already happened,
// with the position of its last event.
func (s *Store) retried(stream string, expected eventstore.ExpectedVersion, events []eventstore.EventData) (eventstore.Position, bool, error) {
	done, err := eventstore.IdempotentRetry(stream, expected, events, func(id uuid.UUID) (eventstore.StoredAt, bool) {
		idx, ok := s.ids[id]
		if !ok {
			return eventstore.StoredAt{}, false
		}
		return eventstore.StoredAt{Stream: s.log[idx].Stream, Version: s.log[idx].Version}, true
	})
	if !done || err != nil {
		return eventstore.Position{}, false, err
	}
	return s.log[s.ids[events[len(events)-1].ID]].Position, true, nil
}

// Load implements eventstore.Store.
func (s *Store) Load(ctx context.Context, stream string, fromVersion int64) ([]eventstore.Envelope, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.isShut {
		return nil, eventstore.ErrClosed
	}
	idxs := s.streams[stream]
	start := max(fromVersion, 1) - 1
	if start >= int64(len(idxs)) {
		return nil, nil
	}
	out := make([]eventstore.Envelope, 0, int64(len(idxs))-start)
	for _, idx := range idxs[start:] {
		out = append(out, clone(s.log[idx]))
	}
	return out, nil
}

// ReadAll implements eventstore.Store.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("eventstore: ReadAll limit %d: want at least 1", limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.isShut {
		return nil, eventstore.ErrClosed
	}
	// Position p is log[p-1]; the events strictly after p start at log[p].
	if from.Commit >= uint64(len(s.log)) {
		return nil, nil
	}
	rest := s.log[from.Commit:]
	if len(rest) > limit {
		rest = rest[:limit]
	}
	out := make([]eventstore.Envelope, len(rest))
	for i, env := range rest {
		out[i] = clone(env)
	}
	return out, nil
}

// Subscribe implements eventstore.Store with eventstore.Follow, woken by every append.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, fn func(eventstore.Envelope) error) error {
	return eventstore.Follow(ctx, s.ReadAll, s.notify, from, fn, &eventstore.FollowOptions{Closed: s.closed})
}

// Close implements eventstore.Store. It waits for an append in progress; calling it again returns ErrClosed.
func (s *Store) Close() error {
	err := eventstore.ErrClosed
	s.once.Do(func() {
		err = nil
		s.commitMu.Lock()
		s.mu.Lock()
		s.isShut = true
		s.mu.Unlock()
		s.commitMu.Unlock()
		close(s.closed)
	})
	return err
}

// clone copies an envelope's data so that callers cannot change the stored log through it.
func clone(env eventstore.Envelope) eventstore.Envelope {
	env.Data = append([]byte(nil), env.Data...)
	return env
}
