package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// Store is the event log. Every backend implements it and passes storetest.
type Store interface {
	// Append writes events to the end of one stream, atomically, if the stream's version matches
	// expected. It returns the global position of the last event written, and only once the events
	// are durable. A version mismatch is a *ConflictError (errors.Is(err, ErrConflict)).
	//
	// An event id names one event in the whole log. Appending events whose ids are already stored in
	// this stream, in the same order, at the versions this append would give them (expected+1 on, or
	// anywhere with Any), succeeds without writing anything again and returns the original position
	// of the last one: an idempotent retry (see IdempotentRetry). Any other append of a stored id (in
	// another stream, at other versions, in another order, or mixed with new ids) is refused with an
	// error matching ErrEventIDReused, and nothing of it is written.
	//
	// KurrentDB differs (storetest.Harness.PerStreamEventIDs): it de-duplicates ids only for a retry at
	// the same stream position, so it cannot refuse an id reused in another stream, or in the same
	// stream at a version the expected version allows; it writes such an event as a new one.
	Append(ctx context.Context, stream string, expected ExpectedVersion, events ...EventData) (Position, error)

	// Load returns the events of one stream with version >= fromVersion, in version order. A stream
	// that does not exist loads as an empty slice and no error.
	Load(ctx context.Context, stream string, fromVersion int64) ([]Envelope, error)

	// ReadAll returns up to limit events that come strictly after from in global order. It never
	// returns an event while an event before it may still commit: a reader that follows ReadAll
	// never skips one that commits late.
	ReadAll(ctx context.Context, from Position, limit int) ([]Envelope, error)

	// Subscribe calls fn for every event after from, in global order: first those already in the log
	// (catch-up), then each new one as it commits (live). It blocks until ctx ends (returning
	// ctx.Err()), fn returns an error (returned as is), or the store closes (ErrClosed).
	Subscribe(ctx context.Context, from Position, fn func(Envelope) error) error

	// Close flushes pending appends and releases the backend. Calls after Close fail with ErrClosed,
	// a second Close included (it releases nothing twice).
	Close() error
}

// EventData is an event on its way into the log.
type EventData struct {
	ID            uuid.UUID       // unique; the key of idempotent appends
	Type          string          // e.g. "connection.connected"
	SchemaVersion int             // of Data's shape for this Type, starting at 1
	Data          json.RawMessage // the event body, a JSON object
	Metadata      Metadata
}

// Envelope is an event as stored.
type Envelope struct {
	ID            uuid.UUID       `json:"id"`
	Stream        string          `json:"stream"`
	Version       int64           `json:"version"` // 1 for a stream's first event
	Position      Position        `json:"position"`
	Type          string          `json:"type"`
	SchemaVersion int             `json:"schema_version"`
	Data          json.RawMessage `json:"data"`
	Metadata      Metadata        `json:"metadata"`
}

// Position is a place in the global order. Events are ordered by (Commit, Prepare). What the two
// numbers hold depends on the backend: SQLite and memory store one gap-free sequence in both;
// PostgreSQL stores the committing transaction id in Commit and the row's sequence in Prepare;
// KurrentDB uses its own $all commit and prepare positions. The zero Position is before every event.
type Position struct {
	Commit  uint64 `json:"commit"`
	Prepare uint64 `json:"prepare"`
}

// Start is the position before the first event.
var Start = Position{}

// Less reports whether p comes before q.
func (p Position) Less(q Position) bool {
	if p.Commit != q.Commit {
		return p.Commit < q.Commit
	}
	return p.Prepare < q.Prepare
}

// IsZero reports whether p is Start.
func (p Position) IsZero() bool { return p == Start }

// String formats p as "commit/prepare", the form ParsePosition reads.
func (p Position) String() string {
	return strconv.FormatUint(p.Commit, 10) + "/" + strconv.FormatUint(p.Prepare, 10)
}

// ParsePosition reads "commit/prepare", or a single number n meaning n/n (the form SQLite and memory
// positions take).
func ParsePosition(s string) (Position, error) {
	c, p, found := strings.Cut(strings.TrimSpace(s), "/")
	commit, err := strconv.ParseUint(c, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("position %q: want COMMIT/PREPARE or a number", s)
	}
	if !found {
		return Position{Commit: commit, Prepare: commit}, nil
	}
	prepare, err := strconv.ParseUint(p, 10, 64)
	if err != nil {
		return Position{}, fmt.Errorf("position %q: want COMMIT/PREPARE or a number", s)
	}
	return Position{Commit: commit, Prepare: prepare}, nil
}

// ExpectedVersion is the optimistic-concurrency condition of an append: Any, NoStream, or an exact
// version (the version of the stream's last event; streams start at version 1).
type ExpectedVersion int64

const (
	// Any appends whatever the stream's version.
	Any ExpectedVersion = -1
	// NoStream appends only to a stream that has no events yet.
	NoStream ExpectedVersion = 0
)

// Exact expects the stream's last event to have version v (v >= 1; Exact(0) is NoStream).
func Exact(v int64) ExpectedVersion { return ExpectedVersion(v) }

func (e ExpectedVersion) String() string {
	switch {
	case e == Any:
		return "any"
	case e == NoStream:
		return "no stream"
	default:
		return "version " + strconv.FormatInt(int64(e), 10)
	}
}

// Matches reports whether a stream whose last version is current satisfies e.
func (e ExpectedVersion) Matches(current int64) bool {
	return e == Any || int64(e) == current
}

var (
	// ErrConflict is matched (errors.Is) by every *ConflictError.
	ErrConflict = errors.New("eventstore: wrong expected version")
	// ErrClosed is returned by every call on a closed store.
	ErrClosed = errors.New("eventstore: store is closed")
	// ErrEventIDReused is matched (errors.Is) by the refusal of an append that names an event id
	// already stored, when the append is not an idempotent retry of the one that stored it.
	ErrEventIDReused = errors.New("eventstore: event id already stored")
)

// ConflictError says an append's expected version did not match the stream. Callers reload and retry.
type ConflictError struct {
	Stream   string
	Expected ExpectedVersion
	Actual   int64 // the stream's version when the append was refused (0: no stream)
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("eventstore: append to %q expected %s, stream is at version %d", e.Stream, e.Expected, e.Actual)
}

func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// ValidateAppend checks the arguments of an append before any backend work; every backend calls it.
func ValidateAppend(stream string, expected ExpectedVersion, events []EventData) error {
	if stream == "" {
		return errors.New("eventstore: empty stream name")
	}
	if expected < Any {
		return fmt.Errorf("eventstore: invalid expected version %d", int64(expected))
	}
	if len(events) == 0 {
		return errors.New("eventstore: append of no events")
	}
	seen := make(map[uuid.UUID]struct{}, len(events))
	for i, ev := range events {
		if ev.ID == uuid.Nil {
			return fmt.Errorf("eventstore: event %d has no id", i)
		}
		if _, dup := seen[ev.ID]; dup {
			return fmt.Errorf("eventstore: event id %s appears twice in one append", ev.ID)
		}
		seen[ev.ID] = struct{}{}
		if ev.Type == "" {
			return fmt.Errorf("eventstore: event %d has no type", i)
		}
		if len(ev.Data) == 0 || !json.Valid(ev.Data) {
			return fmt.Errorf("eventstore: event %d (%s) data is not valid JSON", i, ev.Type)
		}
	}
	return nil
}

// StoredAt is where an event id is already stored: its stream and its version there.
type StoredAt struct {
	Stream  string
	Version int64
}

// IdempotentRetry applies Store.Append's rule for event ids that are already stored, the same in
// every backend. lookup reports where an id is stored (committed, or written earlier in the same
// batch), ok false when it is not. It returns:
//
//   - false, nil when none of the ids is stored: a new append, checked against the stream's version;
//   - true, nil when every id is stored in stream, in this order, at consecutive versions, the first
//     at expected+1 (any version with Any): a retry of an append that happened, to be answered with
//     the position of the last event and written again nowhere;
//   - an error matching ErrEventIDReused otherwise, whatever the stream's version.
func IdempotentRetry(stream string, expected ExpectedVersion, events []EventData, lookup func(uuid.UUID) (StoredAt, bool)) (bool, error) {
	var first StoredAt
	known := 0
	for i, ev := range events {
		at, ok := lookup(ev.ID)
		if !ok {
			continue
		}
		if known == 0 && i > 0 {
			return false, fmt.Errorf("eventstore: append to %q: event %s is new but event %s after it is already stored in %q at version %d: %w",
				stream, events[0].ID, ev.ID, at.Stream, at.Version, ErrEventIDReused)
		}
		if known == 0 {
			first = at
		}
		known++
		if at.Stream != stream || at.Version != first.Version+int64(i) || (expected != Any && int64(expected) != first.Version-1) {
			return false, fmt.Errorf("eventstore: event id %s is already stored in stream %q at version %d; it cannot be appended to %q at %s: %w",
				ev.ID, at.Stream, at.Version, stream, expected, ErrEventIDReused)
		}
	}
	switch known {
	case 0:
		return false, nil
	case len(events):
		return true, nil
	}
	return false, fmt.Errorf("eventstore: append to %q mixes %d already stored event ids with %d new ones: %w",
		stream, known, len(events)-known, ErrEventIDReused)
}
