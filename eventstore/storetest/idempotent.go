package storetest

import (
	"errors"
	"testing"

	"github.com/workbench/workbench/eventstore"
)

// testIdempotent: an append retried with the same event ids (say, after a lost reply) succeeds with the
// original position and writes nothing again; reusing an id anywhere else is refused with
// ErrEventIDReused.
func testIdempotent(t *testing.T, h Harness) {
	s := h.Open(t)
	first := newEvents("first", 0, 2)
	pos1 := mustAppend(t, s, "s", eventstore.NoStream, first...)
	second := newEvent("second", 2)
	pos2 := mustAppend(t, s, "s", eventstore.Exact(2), second)
	mustAppend(t, s, "other", eventstore.NoStream, newEvent("other", 3))
	const logLen = 4

	for _, tc := range []struct {
		name     string
		stream   string
		expected eventstore.ExpectedVersion
		events   []eventstore.EventData
		want     eventstore.Position // for retries that succeed
	}{
		{"same append, same expected version", "s", eventstore.NoStream, first, pos1},
		{"same append, expected any", "s", eventstore.Any, first, pos1},
		{"later append, same expected version", "s", eventstore.Exact(2), []eventstore.EventData{second}, pos2},
		{"later append, expected any", "s", eventstore.Any, []eventstore.EventData{second}, pos2},
	} {
		t.Run("retry/"+tc.name, func(t *testing.T) {
			got, err := s.Append(ctxFor(t), tc.stream, tc.expected, tc.events...)
			if err != nil {
				t.Fatalf("retried Append: %v", err)
			}
			if got != tc.want {
				t.Errorf("retried Append returned %s; want the original %s", got, tc.want)
			}
			checkLogLen(t, s, logLen, "retried append")
		})
	}

	// Every case reuses ids of "s" (at version 3 now). refusedPerStream marks the cases that a backend
	// with per-stream de-duplication refuses too: their expected version does not match the stream, so
	// they fail as conflicts there. The others it would write as new events.
	for _, tc := range []struct {
		name             string
		stream           string
		expected         eventstore.ExpectedVersion
		events           []eventstore.EventData
		refusedPerStream bool
	}{
		{name: "id reused in another stream", stream: "elsewhere", expected: eventstore.NoStream, events: first[:1]},
		{name: "id reused in another existing stream", stream: "other", expected: eventstore.Any, events: first[:1]},
		{name: "id reused at a later version of the same stream", stream: "s", expected: eventstore.Exact(3), events: first[:1]},
		{name: "ids retried in the wrong order", stream: "s", expected: eventstore.Any, events: []eventstore.EventData{first[1], first[0]}},
		{name: "ids retried without their first, at the wrong version", stream: "s", expected: eventstore.NoStream, events: first[1:], refusedPerStream: true},
		{name: "ids retried with an extra new event", stream: "s", expected: eventstore.NoStream, events: append(append([]eventstore.EventData{}, first...), newEvent("new", 9)), refusedPerStream: true},
		{name: "a known id after a new one", stream: "s", expected: eventstore.Exact(3), events: []eventstore.EventData{newEvent("new", 10), second}},
	} {
		t.Run("reuse/"+tc.name, func(t *testing.T) {
			if h.PerStreamEventIDs && !tc.refusedPerStream {
				t.Skip("the backend de-duplicates event ids per stream position only (Harness.PerStreamEventIDs)")
			}
			_, err := s.Append(ctxFor(t), tc.stream, tc.expected, tc.events...)
			switch {
			case err == nil:
				t.Fatal("Append reusing stored event ids succeeded; want an error")
			case errors.Is(err, eventstore.ErrClosed):
				t.Fatalf("Append = %v", err)
			case !h.PerStreamEventIDs && !errors.Is(err, eventstore.ErrEventIDReused):
				t.Errorf("Append = %v; want an error matching ErrEventIDReused", err)
			case !h.PerStreamEventIDs && errors.Is(err, eventstore.ErrConflict):
				t.Errorf("Append = %v; a reused id is not a version conflict (a caller would reload and retry it forever)", err)
			}
			checkLogLen(t, s, logLen, "refused reuse of ids")
		})
	}

	t.Run("stream unchanged", func(t *testing.T) {
		checkEnvelopes(t, "s", 1, append(append([]eventstore.EventData{}, first...), second), mustLoad(t, s, "s", 1))
	})
}
