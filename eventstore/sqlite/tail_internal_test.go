package sqlite

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// The tail's envelopes take the appenders' metadata as is when decoding its stored text would give
// back the same value, and decode it otherwise: either way they equal (deeply, not only as JSON) what
// a read of the file returns.
func TestTailMetadataAsDecoded(t *testing.T) {
	now := time.Now() // with a monotonic clock reading
	cases := map[string]eventstore.Metadata{
		"utc":           {Actor: "u", MCPClient: "c", CorrelationID: "x", CausationID: "y", TraceID: "t", OnBehalfOf: "o", Time: now.UTC()},
		"utc no mono":   {Actor: "u", Time: now.UTC().Round(0)},
		"zero time":     {Actor: "u"},
		"local":         {Actor: "u", Time: now.Local()},
		"fixed zone":    {Actor: "u", Time: now.In(time.FixedZone("z", 90*60))},
		"named utc":     {Actor: "u", Time: now.In(time.FixedZone("UTC", 0))},
		"invalid utf-8": {Actor: "u\xff", Time: now.UTC()},
		"escapes":       {Actor: "<a & \"b\">\u2028", Time: now.UTC()},
	}
	for name, md := range cases {
		t.Run(name, func(t *testing.T) {
			text, err := json.Marshal(md)
			if err != nil {
				t.Fatal(err)
			}
			var want eventstore.Metadata
			if err := json.Unmarshal(text, &want); err != nil {
				t.Fatal(err)
			}
			ev := eventstore.EventData{ID: uuid.New(), Type: "t", Data: []byte(`{}`), Metadata: md}
			envs, err := tailEnvelopes([]row{{pos: 1, version: 1, stream: "s", ev: &ev, metadata: string(text)}})
			if err != nil {
				t.Fatal(err)
			}
			if got := envs[0].Metadata; !reflect.DeepEqual(got, want) {
				t.Errorf("tail metadata = %#v\nwant (decoded) %#v", got, want)
			}
		})
	}
}

// A steady stream of batches prepares nothing: the writer connection keeps its statements, BEGIN and
// COMMIT included, from one batch to the next.
func TestCommitPreparesOnce(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	if _, err := s.Append(ctx, "s", eventstore.NoStream, ev("e")); err != nil {
		t.Fatal(err)
	}
	prepared := s.prepared
	if prepared == 0 {
		t.Fatal("no statement prepared by the first batch")
	}
	for i := range 50 {
		if _, err := s.Append(ctx, "s", eventstore.Exact(int64(1+2*i)), ev("e"), ev("e")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Append(ctx, "other", eventstore.Any, ev("e")); err != nil {
		t.Fatal(err)
	}
	// The batcher goroutine wrote s.prepared before answering the appends above.
	if s.prepared != prepared {
		t.Errorf("statements prepared = %d after 52 batches, want %d (the first batch's)", s.prepared, prepared)
	}
}
