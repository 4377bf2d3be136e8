package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// subscription runs Subscribe in the background and hands over each event it sees.
type subscription struct {
	events chan eventstore.Envelope
	done   chan error
	cancel context.CancelFunc
}

func subscribe(t *testing.T, s eventstore.Store, from eventstore.Position, fn func(eventstore.Envelope) error) *subscription {
	t.Helper()
	ctx, cancel := context.WithCancel(ctxFor(t))
	sub := &subscription{events: make(chan eventstore.Envelope, 1024), done: make(chan error, 1), cancel: cancel}
	go func() {
		sub.done <- s.Subscribe(ctx, from, func(env eventstore.Envelope) error {
			if fn != nil {
				if err := fn(env); err != nil {
					return err
				}
			}
			sub.events <- env
			return nil
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-sub.done:
		case <-time.After(waitLimit):
			t.Errorf("Subscribe did not return after its context was cancelled")
		}
	})
	return sub
}

// next waits for the next n events and checks their ids.
func (sub *subscription) expect(t *testing.T, what string, want ...uuid.UUID) []eventstore.Envelope {
	t.Helper()
	var got []eventstore.Envelope
	timeout := time.After(waitLimit)
	for len(got) < len(want) {
		select {
		case env := <-sub.events:
			got = append(got, env)
		case err := <-sub.done:
			sub.done <- err
			t.Fatalf("%s: Subscribe returned %v after %d of %d events", what, err, len(got), len(want))
		case <-timeout:
			t.Fatalf("%s: got %d of %d events before giving up", what, len(got), len(want))
		}
	}
	for i, env := range got {
		if env.ID != want[i] {
			t.Errorf("%s: event %d is %s (%s v%d), want %s", what, i, env.ID, env.Stream, env.Version, want[i])
		}
		if i > 0 && !got[i-1].Position.Less(env.Position) {
			t.Errorf("%s: event %d at %s is not after %s", what, i, env.Position, got[i-1].Position)
		}
	}
	return got
}

// quiet checks that no further event arrives for a short while (a duplicate would show here).
func (sub *subscription) quiet(t *testing.T, what string) {
	t.Helper()
	select {
	case env := <-sub.events:
		t.Errorf("%s: unexpected extra event %s (%s v%d at %s)", what, env.ID, env.Stream, env.Version, env.Position)
	case <-time.After(300 * time.Millisecond):
	}
}

func idsOf(events []eventstore.EventData) []uuid.UUID {
	out := make([]uuid.UUID, len(events))
	for i, e := range events {
		out[i] = e.ID
	}
	return out
}

func testSubscribe(t *testing.T, h Harness) {
	t.Run("catch-up then live", func(t *testing.T) {
		s := h.Open(t)
		old := newEvents("old", 0, 5)
		mustAppend(t, s, "a", eventstore.NoStream, old[:3]...)
		mustAppend(t, s, "b", eventstore.NoStream, old[3:]...)
		sub := subscribe(t, s, eventstore.Start, nil)
		sub.expect(t, "catch-up", idsOf(old)...)

		live := newEvents("live", 10, 4)
		mustAppend(t, s, "a", eventstore.Exact(3), live[0])
		sub.expect(t, "first live event", live[0].ID)
		mustAppend(t, s, "c", eventstore.NoStream, live[1:3]...)
		mustAppend(t, s, "b", eventstore.Exact(2), live[3])
		sub.expect(t, "later live events", idsOf(live[1:])...)
		sub.quiet(t, "after live events")

		sub.cancel()
		select {
		case err := <-sub.done:
			sub.done <- err
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Subscribe after cancel = %v; want context.Canceled", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Subscribe did not return after cancel")
		}
	})

	t.Run("from a middle position", func(t *testing.T) {
		s := h.Open(t)
		events := newEvents("e", 0, 6)
		for i, ev := range events {
			mustAppend(t, s, "m", eventstore.Exact(int64(i)), ev)
		}
		loaded := mustLoad(t, s, "m", 1)
		sub := subscribe(t, s, loaded[2].Position, nil)
		sub.expect(t, "after the third", idsOf(events[3:])...)
		more := newEvent("e", 7)
		mustAppend(t, s, "m", eventstore.Exact(6), more)
		sub.expect(t, "live after catch-up", more.ID)
		sub.quiet(t, "after the live event")
	})

	t.Run("from the last position", func(t *testing.T) {
		s := h.Open(t)
		pos := mustAppend(t, s, "m", eventstore.NoStream, newEvents("e", 0, 3)...)
		sub := subscribe(t, s, pos, nil)
		sub.quiet(t, "nothing after the last event")
		ev := newEvent("e", 4)
		mustAppend(t, s, "m", eventstore.Exact(3), ev)
		sub.expect(t, "the next event", ev.ID)
	})

	t.Run("handler error is returned", func(t *testing.T) {
		s := h.Open(t)
		events := newEvents("e", 0, 4)
		mustAppend(t, s, "m", eventstore.NoStream, events...)
		stop := errors.New("handler says stop")
		calls := 0
		err := s.Subscribe(ctxFor(t), eventstore.Start, func(env eventstore.Envelope) error {
			calls++
			if env.ID == events[1].ID {
				return stop
			}
			return nil
		})
		if !errors.Is(err, stop) {
			t.Errorf("Subscribe = %v; want the handler's error", err)
		}
		if calls != 2 {
			t.Errorf("handler called %d times; want 2 (Subscribe must stop at the first error)", calls)
		}
	})

	t.Run("cancelled context", func(t *testing.T) {
		s := h.Open(t)
		ctx, cancel := context.WithCancel(ctxFor(t))
		cancel()
		if err := s.Subscribe(ctx, eventstore.Start, func(eventstore.Envelope) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("Subscribe with a cancelled context = %v; want context.Canceled", err)
		}
	})

	t.Run("close ends a live subscription", func(t *testing.T) {
		s := h.Open(t)
		ev := newEvent("e", 0)
		mustAppend(t, s, "m", eventstore.NoStream, ev)
		sub := subscribe(t, s, eventstore.Start, nil)
		sub.expect(t, "catch-up", ev.ID)
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		select {
		case err := <-sub.done:
			sub.done <- err
			if !errors.Is(err, eventstore.ErrClosed) {
				t.Errorf("Subscribe after Close = %v; want ErrClosed", err)
			}
		case <-time.After(waitLimit):
			t.Fatal("Subscribe did not return after Close")
		}
	})
}

// testClosed: every call on a closed store fails with ErrClosed, and Close may be called again.
func testClosed(t *testing.T, h Harness) {
	s := h.Open(t)
	pos := mustAppend(t, s, "m", eventstore.NoStream, newEvent("e", 0))
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := ctxFor(t)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"Append", func() error {
			_, err := s.Append(ctx, "m", eventstore.Any, newEvent("e", 1))
			return err
		}},
		{"Append to a new stream", func() error {
			_, err := s.Append(ctx, "n", eventstore.NoStream, newEvent("e", 1))
			return err
		}},
		{"Load", func() error {
			_, err := s.Load(ctx, "m", 1)
			return err
		}},
		{"ReadAll", func() error {
			_, err := s.ReadAll(ctx, eventstore.Start, 10)
			return err
		}},
		{"Subscribe", func() error {
			return s.Subscribe(ctx, pos, func(eventstore.Envelope) error { return nil })
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, eventstore.ErrClosed) {
				t.Errorf("%s on a closed store = %v; want ErrClosed", tc.name, err)
			}
		})
	}
	// The contract: every call after Close fails with ErrClosed, Close itself included, on every backend
	// alike (a caller that closes twice learns it did, and nothing is released twice).
	t.Run("Close again", func(t *testing.T) {
		for i := 0; i < 2; i++ {
			if err := s.Close(); !errors.Is(err, eventstore.ErrClosed) {
				t.Errorf("Close call %d after the first = %v; want ErrClosed", i+1, err)
			}
		}
	})
}
