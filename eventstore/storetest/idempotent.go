package storetest

import (
	"errors"
	"testing"

	"github.com/workbench/workbench/eventstore"
)

// testIdempotent: an append retried with the same event ids (say, after a lost reply) succeeds with the
// original position and writes nothing again; reusing an id anywhere else is an error.
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

	for _, tc := range []struct {
		name     string
		stream   string
		expected eventstore.ExpectedVersion
		events   []eventstore.EventData
	}{
		{"id reused in another stream", "elsewhere", eventstore.NoStream, first[:1]},
		{"id reused in another existing stream", "other", eventstore.Any, first[:1]},
		{"id reused at a later version of the same stream", "s", eventstore.Exact(3), first[:1]},
		{"ids retried in the wrong order", "s", eventstore.Any, []eventstore.EventData{first[1], first[0]}},
		{"ids retried without their first, at the wrong version", "s", eventstore.NoStream, first[1:]},
		{"ids retried with an extra new event", "s", eventstore.NoStream, append(append([]eventstore.EventData{}, first...), newEvent("new", 9))},
		{"a known id after a new one", "s", eventstore.Exact(3), []eventstore.EventData{newEvent("new", 10), second}},
	} {
		t.Run("reuse/"+tc.name, func(t *testing.T) {
			_, err := s.Append(ctxFor(t), tc.stream, tc.expected, tc.events...)
			if err == nil {
				t.Fatal("Append reusing stored event ids succeeded; want an error")
			}
			if errors.Is(err, eventstore.ErrClosed) {
				t.Fatalf("Append = %v", err)
			}
			checkLogLen(t, s, logLen, "refused reuse of ids")
		})
	}

	t.Run("stream unchanged", func(t *testing.T) {
		checkEnvelopes(t, "s", 1, append(append([]eventstore.EventData{}, first...), second), mustLoad(t, s, "s", 1))
	})
}
