package eventstore

import (
	"errors"
	"testing"

	"github.com/google/uuid"
)

// TestIdempotentRetry pins the one rule every backend applies to event ids that are already stored.
func TestIdempotentRetry(t *testing.T) {
	ev := func() EventData { return EventData{ID: uuid.New(), Type: "t", Data: []byte(`{}`)} }
	a, b, c := ev(), ev(), ev()
	// a and b are versions 2 and 3 of "s"; c is version 1 of "other".
	where := map[uuid.UUID]StoredAt{
		a.ID: {Stream: "s", Version: 2},
		b.ID: {Stream: "s", Version: 3},
		c.ID: {Stream: "other", Version: 1},
	}
	lookup := func(id uuid.UUID) (StoredAt, bool) { at, ok := where[id]; return at, ok }
	fresh := ev()

	for _, tc := range []struct {
		name     string
		stream   string
		expected ExpectedVersion
		events   []EventData
		retry    bool
		reused   bool
	}{
		{name: "no id stored", stream: "s", expected: Exact(3), events: []EventData{fresh}},
		{name: "no id stored, any", stream: "new", expected: Any, events: []EventData{fresh, ev()}},
		{name: "retry at its expected version", stream: "s", expected: Exact(1), events: []EventData{a, b}, retry: true},
		{name: "retry with any", stream: "s", expected: Any, events: []EventData{a, b}, retry: true},
		{name: "retry of the later event alone", stream: "s", expected: Exact(2), events: []EventData{b}, retry: true},
		{name: "retry at another expected version", stream: "s", expected: Exact(3), events: []EventData{a, b}, reused: true},
		{name: "retry with no stream", stream: "s", expected: NoStream, events: []EventData{a, b}, reused: true},
		{name: "another stream", stream: "elsewhere", expected: NoStream, events: []EventData{a}, reused: true},
		{name: "another stream, any", stream: "other", expected: Any, events: []EventData{a}, reused: true},
		{name: "wrong order", stream: "s", expected: Any, events: []EventData{b, a}, reused: true},
		{name: "stored ids then a new one", stream: "s", expected: Exact(1), events: []EventData{a, b, fresh}, reused: true},
		{name: "a new id then a stored one", stream: "s", expected: Exact(3), events: []EventData{fresh, b}, reused: true},
		{name: "ids of two streams", stream: "s", expected: Any, events: []EventData{a, c}, reused: true},
		{name: "a gap between versions", stream: "s", expected: Any, events: []EventData{a, fresh, b}, reused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			retry, err := IdempotentRetry(tc.stream, tc.expected, tc.events, lookup)
			if retry != tc.retry {
				t.Errorf("retry = %v, want %v", retry, tc.retry)
			}
			if got := errors.Is(err, ErrEventIDReused); got != tc.reused {
				t.Errorf("err = %v; want ErrEventIDReused: %v", err, tc.reused)
			}
			if err != nil && !tc.reused {
				t.Errorf("err = %v, want none", err)
			}
			if errors.Is(err, ErrConflict) {
				t.Errorf("err = %v matches ErrConflict; a reused id is not a version conflict", err)
			}
		})
	}
}
