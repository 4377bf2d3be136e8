package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// Harness opens the stores a backend is tested with.
type Harness struct {
	// Open returns a fresh, empty store. The harness closes it in a t.Cleanup; the suite may close it
	// earlier, so Close must be safe to call twice (the second call returns ErrClosed).
	Open func(t *testing.T) eventstore.Store

	// OpenPeer, when non-nil, returns a second, independent handle on the same log as first, the way
	// another replica or process would see it (SQLite: a second handle on the same file; PostgreSQL: a
	// second pool on the same database). The harness closes it in a t.Cleanup. Nil for backends that
	// cannot share a log between handles (memory).
	OpenPeer func(t *testing.T, first eventstore.Store) eventstore.Store

	// PerStreamEventIDs says the backend de-duplicates event ids only for a retry at the same stream
	// position and cannot refuse an id reused elsewhere (KurrentDB). The suite then skips the id-reuse
	// cases such a backend would write as new events, and does not ask for ErrEventIDReused on the
	// others (which it refuses as version conflicts).
	PerStreamEventIDs bool
}

// waitLimit bounds how long the suite waits for something that a correct backend does at once (a
// subscriber catching up, a reader draining the log). It only stops a broken backend from hanging the
// run; it is not a speed requirement.
const waitLimit = 60 * time.Second

// Run runs the whole suite against the backend h opens, each part as a named subtest.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("storetest: Harness.Open is nil")
	}
	t.Run("AppendLoadRoundTrip", func(t *testing.T) { testRoundTrip(t, h) })
	t.Run("LoadFromVersion", func(t *testing.T) { testLoadFromVersion(t, h) })
	t.Run("ExpectedVersion", func(t *testing.T) { testExpectedVersion(t, h) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, h) })
	t.Run("ConcurrentOneStream", func(t *testing.T) { testConcurrentOneStream(t, h) })
	t.Run("ConcurrentGlobalOrder", func(t *testing.T) { testConcurrentGlobalOrder(t, h) })
	t.Run("Subscribe", func(t *testing.T) { testSubscribe(t, h) })
	t.Run("Closed", func(t *testing.T) { testClosed(t, h) })
	t.Run("IdempotentAppend", func(t *testing.T) { testIdempotent(t, h) })
	t.Run("ReadAll", func(t *testing.T) { testReadAll(t, h) })
}

// ctxFor returns a context that ends with the test or after waitLimit.
func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}

// sampleTime is a metadata time with nanoseconds, to catch backends that truncate it.
var sampleTime = time.Date(2026, 3, 14, 15, 9, 26, 535897932, time.UTC)

// newEvent returns an event with a fresh id, a small JSON body and every metadata field set.
func newEvent(typ string, n int) eventstore.EventData {
	id := uuid.New()
	return eventstore.EventData{
		ID:            id,
		Type:          typ,
		SchemaVersion: 1 + n%3,
		Data:          []byte(fmt.Sprintf(`{"n":%d,"s":"caf\u00e9 \"quoted\""}`, n)),
		Metadata: eventstore.Metadata{
			Actor:         "user-" + fmt.Sprint(n),
			OnBehalfOf:    "admin-7",
			MCPClient:     "client-abc",
			CorrelationID: "corr-" + id.String()[:8],
			CausationID:   "cause-" + fmt.Sprint(n),
			Time:          sampleTime.Add(time.Duration(n) * time.Microsecond),
		},
	}
}

func newEvents(typ string, from, count int) []eventstore.EventData {
	out := make([]eventstore.EventData, count)
	for i := range out {
		out[i] = newEvent(typ, from+i)
	}
	return out
}

func mustAppend(t *testing.T, s eventstore.Store, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) eventstore.Position {
	t.Helper()
	pos, err := s.Append(ctxFor(t), stream, expected, events...)
	if err != nil {
		t.Fatalf("Append(%q, %s, %d events): %v", stream, expected, len(events), err)
	}
	return pos
}

func mustLoad(t *testing.T, s eventstore.Store, stream string, from int64) []eventstore.Envelope {
	t.Helper()
	envs, err := s.Load(ctxFor(t), stream, from)
	if err != nil {
		t.Fatalf("Load(%q, %d): %v", stream, from, err)
	}
	return envs
}

// readAll pages through the whole log after from.
func readAll(t *testing.T, s eventstore.Store, from eventstore.Position) []eventstore.Envelope {
	t.Helper()
	var out []eventstore.Envelope
	for {
		page, err := s.ReadAll(ctxFor(t), from, 100)
		if err != nil {
			t.Fatalf("ReadAll(%s, 100): %v", from, err)
		}
		out = append(out, page...)
		if len(page) < 100 {
			return out
		}
		from = page[len(page)-1].Position
	}
}

// envelopeOpts compares envelopes field by field; times compare as instants and data byte for byte
// (a reflective diff of a 1 MiB payload takes minutes under the race detector).
var envelopeOpts = cmp.Options{
	cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }),
	cmp.Comparer(func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }),
}

// checkEnvelopes checks that got holds the events of want, appended to stream from version first on,
// with positions strictly increasing.
func checkEnvelopes(t *testing.T, stream string, first int64, want []eventstore.EventData, got []eventstore.Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("stream %q: got %d events, want %d", stream, len(got), len(want))
	}
	for i, env := range got {
		w := want[i]
		exp := eventstore.Envelope{
			ID: w.ID, Stream: stream, Version: first + int64(i), Position: env.Position,
			Type: w.Type, SchemaVersion: w.SchemaVersion, Data: w.Data, Metadata: w.Metadata,
		}
		if diff := cmp.Diff(exp, env, envelopeOpts); diff != "" {
			t.Errorf("stream %q event %d (-want +got):\n%s", stream, i, diff)
		}
		if env.Position.IsZero() {
			t.Errorf("stream %q event %d has the zero position", stream, i)
		}
		if i > 0 && !got[i-1].Position.Less(env.Position) {
			t.Errorf("stream %q: position %s of version %d is not after %s", stream, env.Position, env.Version, got[i-1].Position)
		}
	}
}

// checkNothingWritten fails when the log holds more events than before.
func checkLogLen(t *testing.T, s eventstore.Store, want int, why string) {
	t.Helper()
	if got := readAll(t, s, eventstore.Start); len(got) != want {
		t.Errorf("%s: log holds %d events, want %d", why, len(got), want)
	}
}

// isConflict reports whether err is a *ConflictError that errors.Is matches to ErrConflict.
func asConflict(err error) (*eventstore.ConflictError, bool) {
	var ce *eventstore.ConflictError
	if !errors.As(err, &ce) || !errors.Is(err, eventstore.ErrConflict) {
		return nil, false
	}
	return ce, true
}
