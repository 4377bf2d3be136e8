package eventstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/google/uuid"
)

// Aggregate bundles the pure functions of one aggregate for the command loop. S is its state, C its
// command type and E its event type (usually domain.Event). The loop knows no domain type: it is handed
// these functions and a codec.
type Aggregate[S, C, E any] struct {
	// Initial returns the state of a stream with no events.
	Initial func() S
	// Evolve folds one event into the state. It must not fail: events are facts.
	Evolve func(S, E) S
	// Decide turns a command into the events it causes, or refuses it with an error (usually a
	// *domain.Error). It must be pure: everything it needs arrives in the state and the command.
	Decide func(S, C) ([]E, error)
	// Codec encodes and decodes the aggregate's events.
	Codec Codec[E]
}

// Codec turns events into their stored form and back.
type Codec[E any] interface {
	Encode(E) (typ string, schemaVersion int, data json.RawMessage, err error)
	Decode(typ string, schemaVersion int, data json.RawMessage) (E, error)
}

// Result is what an executed command produced.
type Result[S, E any] struct {
	State    S        // the state after the new events
	Events   []E      // the new events (none when Decide had nothing to record)
	Version  int64    // the stream's version after the append
	Position Position // the global position of the last new event; Start when none were appended
}

// MaxCommandAttempts bounds how often Execute retries a command whose append lost a race.
const MaxCommandAttempts = 8

// Execute runs one command against one stream: load the stream, fold it with Evolve, Decide, and
// append the events with the version it read as the expected version. On a conflict it reloads and
// decides again, up to MaxCommandAttempts times with a short jittered pause. md is stamped on every new
// event (its Time is filled in when zero).
func Execute[S, C, E any](ctx context.Context, store Store, stream string, agg Aggregate[S, C, E], cmd C, md Metadata) (Result[S, E], error) {
	var zero Result[S, E]
	for attempt := 1; ; attempt++ {
		state, version, err := LoadState(ctx, store, stream, agg)
		if err != nil {
			return zero, err
		}
		events, err := agg.Decide(state, cmd)
		if err != nil {
			return zero, err
		}
		if len(events) == 0 {
			return Result[S, E]{State: state, Version: version}, nil
		}
		data := make([]EventData, len(events))
		if md.Time.IsZero() {
			md.Time = time.Now().UTC()
		}
		for i, ev := range events {
			typ, sv, body, err := agg.Codec.Encode(ev)
			if err != nil {
				return zero, fmt.Errorf("encode %T: %w", ev, err)
			}
			data[i] = EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: body, Metadata: md}
		}
		pos, err := store.Append(ctx, stream, Exact(version), data...)
		if errors.Is(err, ErrConflict) && attempt < MaxCommandAttempts {
			pause := time.Duration(attempt) * time.Millisecond * time.Duration(1+rand.IntN(5))
			select {
			case <-ctx.Done():
				return zero, ctx.Err()
			case <-time.After(pause):
			}
			continue
		}
		if err != nil {
			return zero, fmt.Errorf("append to %s: %w", stream, err)
		}
		for _, ev := range events {
			state = agg.Evolve(state, ev)
		}
		return Result[S, E]{State: state, Events: events, Version: version + int64(len(events)), Position: pos}, nil
	}
}

// LoadState folds a whole stream into its current state and returns it with the stream's version.
func LoadState[S, C, E any](ctx context.Context, store Store, stream string, agg Aggregate[S, C, E]) (S, int64, error) {
	state := agg.Initial()
	envs, err := store.Load(ctx, stream, 1)
	if err != nil {
		return state, 0, fmt.Errorf("load %s: %w", stream, err)
	}
	var version int64
	for _, env := range envs {
		ev, err := agg.Codec.Decode(env.Type, env.SchemaVersion, env.Data)
		if err != nil {
			return state, 0, fmt.Errorf("decode %s v%d of %s: %w", env.Type, env.Version, stream, err)
		}
		state = agg.Evolve(state, ev)
		version = env.Version
	}
	return state, version, nil
}

// TypedEvent is what JSONCodec encodes: an event that names its own type.
type TypedEvent interface {
	EventType() string
}

// JSONCodec encodes events as JSON under the name their EventType method gives. Every concrete event
// type must be registered so that it can be decoded. All are schema version 1 until an event's shape
// changes; then Upcast converts old bodies before decoding.
type JSONCodec[E TypedEvent] struct {
	types map[string]reflect.Type
	// Upcast, when set, rewrites a stored body of an older schema version into the current shape.
	Upcast func(typ string, schemaVersion int, data json.RawMessage) (json.RawMessage, error)
}

// NewJSONCodec registers the given events by their EventType. Pass zero values: Opened{}, Closed{}.
func NewJSONCodec[E TypedEvent](events ...E) *JSONCodec[E] {
	c := &JSONCodec[E]{types: make(map[string]reflect.Type, len(events))}
	for _, ev := range events {
		name := ev.EventType()
		if _, dup := c.types[name]; dup {
			panic("eventstore: event type registered twice: " + name)
		}
		c.types[name] = reflect.TypeOf(ev)
	}
	return c
}

// Encode implements Codec.
func (c *JSONCodec[E]) Encode(ev E) (string, int, json.RawMessage, error) {
	name := ev.EventType()
	if _, ok := c.types[name]; !ok {
		return "", 0, nil, fmt.Errorf("event type %q is not registered", name)
	}
	data, err := json.Marshal(ev)
	return name, 1, data, err
}

// Decode implements Codec.
func (c *JSONCodec[E]) Decode(typ string, schemaVersion int, data json.RawMessage) (E, error) {
	var zero E
	t, ok := c.types[typ]
	if !ok {
		return zero, fmt.Errorf("unknown event type %q", typ)
	}
	if schemaVersion != 1 {
		if c.Upcast == nil {
			return zero, fmt.Errorf("event type %q schema version %d has no upcaster", typ, schemaVersion)
		}
		var err error
		if data, err = c.Upcast(typ, schemaVersion, data); err != nil {
			return zero, fmt.Errorf("upcast %q v%d: %w", typ, schemaVersion, err)
		}
	}
	ptr := t.Kind() == reflect.Pointer
	base := t
	if ptr {
		base = t.Elem()
	}
	v := reflect.New(base)
	if err := json.Unmarshal(data, v.Interface()); err != nil {
		return zero, err
	}
	if ptr {
		return v.Interface().(E), nil
	}
	return v.Elem().Interface().(E), nil
}
