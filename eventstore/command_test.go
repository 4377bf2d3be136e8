package eventstore_test

import (
	"context"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
)

type counted struct{ N int }

func (counted) EventType() string { return "counted" }

// The command loop gives every new event a time-ordered id (UUIDv7), so appends land at the end of
// the event id index instead of on a random page of it; ids from one process still never repeat.
func TestExecuteGivesTimeOrderedEventIDs(t *testing.T) {
	ctx := context.Background()
	store := memory.New(nil)
	agg := eventstore.Aggregate[int, int, counted]{
		Initial: func() int { return 0 },
		Evolve:  func(s int, e counted) int { return s + e.N },
		Decide:  func(_ int, n int) ([]counted, error) { return []counted{{N: n}, {N: n}}, nil },
		Codec:   eventstore.NewJSONCodec(counted{}),
	}
	for range 3 {
		if _, err := eventstore.Execute(ctx, store, "counter-1", agg, 1, eventstore.Metadata{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	envs, err := store.Load(ctx, "counter-1", 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 6 {
		t.Fatalf("%d events, want 6", len(envs))
	}
	for i, env := range envs {
		if env.ID.Version() != 7 {
			t.Fatalf("event %d has id %s: want UUIDv7", i, env.ID)
		}
		if i > 0 && env.ID.String() <= envs[i-1].ID.String() {
			t.Fatalf("event ids out of order: %s after %s", env.ID, envs[i-1].ID)
		}
	}
}
