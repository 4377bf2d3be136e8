package storetest

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// testRoundTrip: what goes in comes back out, byte for byte, with versions 1..n and increasing positions.
func testRoundTrip(t *testing.T, h Harness) {
	s := h.Open(t)
	const stream = "connection-ü/äöß:1 with spaces"

	first := newEvents("thing.happened", 0, 3)
	pos1 := mustAppend(t, s, stream, eventstore.NoStream, first...)

	// A 1 MiB payload (plus the JSON around it), stored and returned intact.
	big := newEvent("thing.big", 3)
	big.Data = []byte(`{"blob":"` + strings.Repeat("0123456789abcdef", 1<<16) + `"}`)
	// Sparse metadata: empty fields stay empty.
	sparse := newEvent("thing.sparse", 4)
	sparse.Metadata.OnBehalfOf, sparse.Metadata.MCPClient, sparse.Metadata.CausationID = "", "", ""
	pos2 := mustAppend(t, s, stream, eventstore.Exact(3), big, sparse)

	all := append(append([]eventstore.EventData{}, first...), big, sparse)
	got := mustLoad(t, s, stream, 1)
	checkEnvelopes(t, stream, 1, all, got)
	if len(got) != 5 {
		return
	}
	if got[2].Position != pos1 {
		t.Errorf("first Append returned %s, its last event is at %s", pos1, got[2].Position)
	}
	if got[4].Position != pos2 {
		t.Errorf("second Append returned %s, its last event is at %s", pos2, got[4].Position)
	}
	if !pos1.Less(pos2) {
		t.Errorf("second Append's position %s is not after the first's %s", pos2, pos1)
	}

	// ReadAll returns the same envelopes.
	if diff := cmp.Diff(got, readAll(t, s, eventstore.Start), envelopeOpts); diff != "" {
		t.Errorf("ReadAll differs from Load (-load +readall):\n%s", diff)
	}

	// Another stream's events do not leak into this one, and Load(0) means the whole stream.
	mustAppend(t, s, "other", eventstore.NoStream, newEvent("other.thing", 9))
	if diff := cmp.Diff(got, mustLoad(t, s, stream, 0), envelopeOpts); diff != "" {
		t.Errorf("Load(stream, 0) differs from Load(stream, 1) (-1 +0):\n%s", diff)
	}
}

func testLoadFromVersion(t *testing.T, h Harness) {
	s := h.Open(t)
	events := newEvents("e", 0, 5)
	mustAppend(t, s, "s", eventstore.NoStream, events...)
	mustAppend(t, s, "t", eventstore.NoStream, newEvents("e", 10, 2)...)
	for _, tc := range []struct {
		name string
		from int64
		want int // how many events, the last ones of the stream
	}{
		{"zero means all", 0, 5},
		{"one means all", 1, 5},
		{"middle", 3, 3},
		{"last", 5, 1},
		{"past the end", 6, 0},
		{"far past the end", 1000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustLoad(t, s, "s", tc.from)
			first := int64(len(events) - tc.want + 1)
			checkEnvelopes(t, "s", first, events[len(events)-tc.want:], got)
		})
	}
	t.Run("missing stream", func(t *testing.T) {
		got, err := s.Load(ctxFor(t), "never-written", 1)
		if err != nil || len(got) != 0 {
			t.Errorf("Load of a missing stream = %d events, %v; want none and no error", len(got), err)
		}
	})
}

func testExpectedVersion(t *testing.T, h Harness) {
	s := h.Open(t)
	for i, tc := range []struct {
		name     string
		existing int // events already in the stream
		expected eventstore.ExpectedVersion
		conflict bool
		v7       bool // the stream is named after a UUIDv7, as executions are (a backend may take it to be new)
	}{
		{"no stream on a new stream", 0, eventstore.NoStream, false, false},
		{"no stream on an existing stream", 2, eventstore.NoStream, true, false},
		{"no stream on a new v7-named stream", 0, eventstore.NoStream, false, true},
		{"no stream on an existing v7-named stream", 2, eventstore.NoStream, true, true},
		{"exact right", 2, eventstore.Exact(2), false, false},
		{"exact behind", 2, eventstore.Exact(1), true, false},
		{"exact ahead", 2, eventstore.Exact(5), true, false},
		{"exact on a new stream", 0, eventstore.Exact(1), true, false},
		{"any on a new stream", 0, eventstore.Any, false, false},
		{"any on an existing stream", 3, eventstore.Any, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stream := "ev-" + string(rune('a'+i))
			if tc.v7 {
				stream = "execution-" + uuid.Must(uuid.NewV7()).String()
			}
			if tc.existing > 0 {
				mustAppend(t, s, stream, eventstore.NoStream, newEvents("seed", 0, tc.existing)...)
			}
			before := len(readAll(t, s, eventstore.Start))
			ev := newEvent("try", 100)
			pos, err := s.Append(ctxFor(t), stream, tc.expected, ev)
			if !tc.conflict {
				if err != nil {
					t.Fatalf("Append: %v", err)
				}
				got := mustLoad(t, s, stream, 1)
				if len(got) != tc.existing+1 || got[tc.existing].ID != ev.ID || got[tc.existing].Position != pos {
					t.Errorf("after Append the stream holds %d events; want %d ending with %s at %s", len(got), tc.existing+1, ev.ID, pos)
				}
				return
			}
			ce, ok := asConflict(err)
			if !ok {
				t.Fatalf("Append = %v; want a *ConflictError matching ErrConflict", err)
			}
			if ce.Stream != stream || ce.Expected != tc.expected || ce.Actual != int64(tc.existing) {
				t.Errorf("ConflictError = %+v; want stream %q, expected %s, actual %d", *ce, stream, tc.expected, tc.existing)
			}
			if got := mustLoad(t, s, stream, 1); len(got) != tc.existing {
				t.Errorf("refused append changed the stream: %d events, want %d", len(got), tc.existing)
			}
			checkLogLen(t, s, before, "refused append")
		})
	}
	t.Run("no stream retried on a v7-named stream", func(t *testing.T) {
		stream := "execution-" + uuid.Must(uuid.NewV7()).String()
		evs := newEvents("first", 0, 2)
		pos := mustAppend(t, s, stream, eventstore.NoStream, evs...)
		before := len(readAll(t, s, eventstore.Start))
		again, err := s.Append(ctxFor(t), stream, eventstore.NoStream, evs...)
		if err != nil || again != pos {
			t.Fatalf("retried Append = %s, %v; want the first append's %s", again, err, pos)
		}
		checkLogLen(t, s, before, "retried append")
	})
}

func testBadInput(t *testing.T, h Harness) {
	s := h.Open(t)
	mustAppend(t, s, "exists", eventstore.NoStream, newEvent("seed", 0))
	dup := newEvent("dup", 1)
	for _, tc := range []struct {
		name     string
		stream   string
		expected eventstore.ExpectedVersion
		events   func() []eventstore.EventData
	}{
		{"empty stream", "", eventstore.Any, func() []eventstore.EventData { return newEvents("x", 0, 1) }},
		{"no events", "s", eventstore.Any, func() []eventstore.EventData { return nil }},
		{"nil id", "s", eventstore.Any, func() []eventstore.EventData {
			e := newEvents("x", 0, 2)
			e[1].ID = uuid.Nil
			return e
		}},
		{"invalid JSON", "s", eventstore.Any, func() []eventstore.EventData {
			e := newEvents("x", 0, 2)
			e[1].Data = []byte(`{"n":`)
			return e
		}},
		{"empty data", "s", eventstore.Any, func() []eventstore.EventData {
			e := newEvents("x", 0, 1)
			e[0].Data = nil
			return e
		}},
		{"empty type", "s", eventstore.Any, func() []eventstore.EventData {
			e := newEvents("x", 0, 1)
			e[0].Type = ""
			return e
		}},
		{"same id twice in one append", "s", eventstore.Any, func() []eventstore.EventData {
			return []eventstore.EventData{dup, dup}
		}},
		{"expected version below any", "exists", eventstore.ExpectedVersion(-2), func() []eventstore.EventData { return newEvents("x", 0, 1) }},
		{"bad event on an existing stream", "exists", eventstore.Exact(1), func() []eventstore.EventData {
			e := newEvents("x", 0, 3)
			e[2].Data = []byte(`not json`)
			return e
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctxFor(t), tc.stream, tc.expected, tc.events()...)
			if err == nil {
				t.Fatal("Append accepted bad input")
			}
			if errors.Is(err, eventstore.ErrConflict) || errors.Is(err, eventstore.ErrClosed) {
				t.Errorf("Append = %v; want an input error, not a conflict or closed store", err)
			}
			checkLogLen(t, s, 1, "refused bad input")
		})
	}
}

func testReadAll(t *testing.T, h Harness) {
	s := h.Open(t)
	// Ten events over three streams, interleaved.
	var appended []eventstore.EventData
	streams := []string{"a", "b", "c"}
	versions := map[string]int64{}
	for i := 0; i < 10; i++ {
		st := streams[i%3]
		ev := newEvent("r", i)
		mustAppend(t, s, st, eventstore.Exact(versions[st]), ev)
		versions[st]++
		appended = append(appended, ev)
	}
	all := readAll(t, s, eventstore.Start)
	if len(all) != 10 {
		t.Fatalf("ReadAll(Start) = %d events, want 10", len(all))
	}
	for i, env := range all {
		if env.ID != appended[i].ID || env.Stream != streams[i%3] {
			t.Errorf("event %d: got %s in %q; want %s in %q (global order is append order)", i, env.ID, env.Stream, appended[i].ID, streams[i%3])
		}
		if i > 0 && !all[i-1].Position.Less(env.Position) {
			t.Errorf("event %d: position %s not after %s", i, env.Position, all[i-1].Position)
		}
	}
	ids := func(envs []eventstore.Envelope) []uuid.UUID {
		out := make([]uuid.UUID, len(envs))
		for i, e := range envs {
			out[i] = e.ID
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		from  eventstore.Position
		limit int
		want  []eventstore.Envelope
	}{
		{"from start, limit larger than the log", eventstore.Start, 100, all},
		{"from start, limit exact", eventstore.Start, 10, all},
		{"from start, limit 3", eventstore.Start, 3, all[:3]},
		{"limit 1", eventstore.Start, 1, all[:1]},
		{"after the third, limit 4", all[2].Position, 4, all[3:7]},
		{"after the ninth", all[8].Position, 5, all[9:]},
		{"after the last", all[9].Position, 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.ReadAll(ctxFor(t), tc.from, tc.limit)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if diff := cmp.Diff(ids(tc.want), ids(got)); diff != "" {
				t.Errorf("ReadAll(%s, %d) ids (-want +got):\n%s", tc.from, tc.limit, diff)
			}
		})
	}
	t.Run("paging by one", func(t *testing.T) {
		var got []eventstore.Envelope
		from := eventstore.Start
		for i := 0; i < 20; i++ {
			page, err := s.ReadAll(ctxFor(t), from, 1)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if len(page) == 0 {
				break
			}
			got = append(got, page...)
			from = page[0].Position
		}
		if diff := cmp.Diff(all, got, envelopeOpts); diff != "" {
			t.Errorf("paging one at a time differs (-all +paged):\n%s", diff)
		}
	})
	t.Run("matches Load", func(t *testing.T) {
		for _, st := range streams {
			var want []eventstore.Envelope
			for _, env := range all {
				if env.Stream == st {
					want = append(want, env)
				}
			}
			if diff := cmp.Diff(want, mustLoad(t, s, st, 1), envelopeOpts); diff != "" {
				t.Errorf("stream %q: Load differs from ReadAll (-readall +load):\n%s", st, diff)
			}
		}
	})
}
