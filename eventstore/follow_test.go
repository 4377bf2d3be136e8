package eventstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/workbench/workbench/eventstore"
)

// Follow owns the closed-store mapping every backend's Subscribe used to repeat.
func TestFollowReportsClose(t *testing.T) {
	ctx := context.Background()
	one := []eventstore.Envelope{{Stream: "s", Version: 1, Position: eventstore.Position{Commit: 1}}}

	t.Run("closed before it starts", func(t *testing.T) {
		closed := make(chan struct{})
		close(closed)
		readAll := func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) { return one, nil }
		called := false
		err := eventstore.Follow(ctx, readAll, nil, eventstore.Start, func(eventstore.Envelope) error { called = true; return nil }, &eventstore.FollowOptions{Closed: closed})
		if err != eventstore.ErrClosed || called {
			t.Fatalf("Follow on a closed store = %v (fn called: %v); want ErrClosed before any read", err, called)
		}
	})

	t.Run("a read fails because the store closed", func(t *testing.T) {
		closed := make(chan struct{})
		readAll := func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) {
			close(closed)
			return nil, errors.New("sql: database is closed")
		}
		err := eventstore.Follow(ctx, readAll, nil, eventstore.Start, func(eventstore.Envelope) error { return nil }, &eventstore.FollowOptions{Closed: closed})
		if err != eventstore.ErrClosed {
			t.Fatalf("Follow = %v; want ErrClosed", err)
		}
	})

	t.Run("a read reports a wrapped ErrClosed", func(t *testing.T) {
		readAll := func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) {
			return nil, fmt.Errorf("eventstore/x: read all: %w", eventstore.ErrClosed)
		}
		if err := eventstore.Follow(ctx, readAll, nil, eventstore.Start, func(eventstore.Envelope) error { return nil }, nil); err != eventstore.ErrClosed {
			t.Fatalf("Follow = %v; want ErrClosed itself", err)
		}
	})

	t.Run("other read errors are returned as they are", func(t *testing.T) {
		boom := errors.New("disk on fire")
		readAll := func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) { return nil, boom }
		if err := eventstore.Follow(ctx, readAll, nil, eventstore.Start, func(eventstore.Envelope) error { return nil }, &eventstore.FollowOptions{Closed: make(chan struct{})}); err != boom {
			t.Fatalf("Follow = %v; want %v", err, boom)
		}
	})

	t.Run("a handler error is returned as is, even after close", func(t *testing.T) {
		closed := make(chan struct{})
		stop := errors.New("stop")
		readAll := func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) { return one, nil }
		err := eventstore.Follow(ctx, readAll, nil, eventstore.Start, func(eventstore.Envelope) error { close(closed); return stop }, &eventstore.FollowOptions{Closed: closed})
		if err != stop {
			t.Fatalf("Follow = %v; want the handler's error", err)
		}
	})
}
