package connections

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// wait_for_connection answers.
const (
	StatusConnected = "CONNECTED"
	StatusTimeout   = "TIMEOUT"
	StatusExpired   = "EXPIRED"
)

// UnknownConnection is the exact message of the not_found error for an unknown connectionId or
// another user's (spec, Connecting an integration).
const UnknownConnection = "Unknown connectionId"

// hub wakes the waiters of a stream when the bus delivers one of its events. A wake-up carries no
// data: the waiter reads the log, which already holds the event (the relay publishes only what has
// committed).
type hub struct {
	mu       sync.Mutex
	watchers map[string]map[chan struct{}]struct{}
}

func newHub() *hub { return &hub{watchers: map[string]map[chan struct{}]struct{}{}} }

// watch registers a waiter on stream; call stop when done.
func (h *hub) watch(stream string) (wake <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.watchers[stream] == nil {
		h.watchers[stream] = map[chan struct{}]struct{}{}
	}
	h.watchers[stream][ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.watchers[stream], ch)
		if len(h.watchers[stream]) == 0 {
			delete(h.watchers, stream)
		}
		h.mu.Unlock()
	}
}

func (h *hub) notify(stream string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.watchers[stream] {
		select {
		case ch <- struct{}{}:
		default: // a wake-up is already pending
		}
	}
}

// WaitForConnection blocks until the connect attempt attemptID of user ends or timeout passes. It
// answers CONNECTED, EXPIRED (the attempt expired, was superseded or cancelled), or TIMEOUT (the wait
// ran out and the attempt is still pending); for an unknown id, another user's, or one that ended
// more than Retention ago, a CodeNotFound error whose message is exactly "Unknown connectionId".
//
// It wakes on the committed event delivered by the bus, so a callback handled by another replica
// completes it, and reads the outcome from the log itself. Before answering CONNECTED it waits for
// this replica's read models to hold the connection, so the agent's next call sees it.
func (s *Service) WaitForConnection(ctx context.Context, user, attemptID uuid.UUID, timeout time.Duration) (string, error) {
	unknown := domain.Errorf(domain.CodeNotFound, UnknownConnection)
	start := s.clock()
	row, err := s.reader.Attempt(ctx, attemptID)
	if errors.Is(err, connectionsrm.ErrNotFound) || (err == nil && row.UserID != user) {
		return "", unknown
	}
	if err != nil {
		return "", fmt.Errorf("wait for connection: %w", err)
	}
	if row.Outcome != connection.AttemptPending && !row.EndedAt.IsZero() && start.Sub(row.EndedAt) > s.retention {
		return "", unknown
	}
	stream := connection.StreamName(user, row.Integration, row.Account)
	wake, stop := s.hub.watch(stream)
	defer stop()
	deadline := start.Add(max(timeout, 0))
	timer := time.NewTimer(max(timeout, 0))
	defer timer.Stop()

	// Until the bus subscription is in place a wake-up could be lost; wait for it (bounded by the
	// deadline; the log is read again below either way).
	select {
	case <-s.ready:
	case <-timer.C:
		timer.Reset(0)
	case <-ctx.Done():
		return "", ctx.Err()
	}
	var poll <-chan time.Time
	if s.bus == nil {
		t := time.NewTicker(s.pollEvery)
		defer t.Stop()
		poll = t.C
	}
	for {
		outcome, expiresAt, pos, err := s.attemptOutcome(ctx, stream, attemptID)
		if err != nil {
			return "", fmt.Errorf("wait for connection: %w", err)
		}
		now := s.clock()
		switch outcome {
		case connection.AttemptConnected:
			if err := s.runner.WaitFor(ctx, pos); err != nil {
				return "", fmt.Errorf("wait for connection: read models: %w", err)
			}
			return StatusConnected, nil
		case connection.AttemptExpired:
			return StatusExpired, nil
		}
		if !now.Before(expiresAt) {
			// The link ran out; record it so every other waiter and the read model agree.
			if err := s.expire(ctx, user, row.Integration, row.Account, attemptID, now); err != nil {
				return "", fmt.Errorf("wait for connection: %w", err)
			}
			continue
		}
		if !now.Before(deadline) {
			return StatusTimeout, nil
		}
		linkEnds := time.NewTimer(expiresAt.Sub(now))
		select {
		case <-ctx.Done():
			linkEnds.Stop()
			return "", ctx.Err()
		case <-wake:
		case <-poll:
		case <-linkEnds.C:
		case <-timer.C:
			timer.Reset(time.Hour) // the deadline check above answers TIMEOUT
		}
		linkEnds.Stop()
	}
}

// attemptOutcome reads one attempt's outcome from its connection stream: connected or expired with
// the position of the event that said so, or pending with its expiry.
func (s *Service) attemptOutcome(ctx context.Context, stream string, attemptID uuid.UUID) (connection.AttemptOutcome, time.Time, eventstore.Position, error) {
	envs, err := s.store.Load(ctx, stream, 1)
	if err != nil {
		return "", time.Time{}, eventstore.Start, err
	}
	var expires time.Time
	found := false
	for _, env := range envs {
		switch env.Type {
		case connection.TypeStarted, connection.TypeConnected, connection.TypePendingExpired:
		default:
			continue
		}
		ev, err := connectionAggregate.Codec.Decode(env.Type, env.SchemaVersion, env.Data)
		if err != nil {
			return "", time.Time{}, eventstore.Start, fmt.Errorf("decode %s: %w", env.Type, err)
		}
		switch e := ev.(type) {
		case connection.Started:
			if e.AttemptID == attemptID {
				found, expires = true, e.ExpiresAt
			}
		case connection.Connected:
			if e.AttemptID == attemptID {
				return connection.AttemptConnected, expires, env.Position, nil
			}
		case connection.PendingExpired:
			if e.AttemptID == attemptID {
				return connection.AttemptExpired, expires, env.Position, nil
			}
		}
	}
	if !found {
		// The read model names an attempt the log does not hold in this stream: treat it as over.
		return connection.AttemptExpired, expires, eventstore.Start, nil
	}
	return connection.AttemptPending, expires, eventstore.Start, nil
}
