package sqlite_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
)

// Reads of the events a store has just written come from its tail in memory; they must be what a
// read of the file returns, and never miss an event another process (here: another Store on the same
// file, with its own connections) wrote before, between or after them.
func TestTailReads(t *testing.T) {
	zone := time.FixedZone("test", 90*60)
	ev := func() eventstore.EventData {
		e := event("e")
		e.Metadata.Time = time.Now().In(zone) // with a monotonic reading and an offset: stored as text
		return e
	}
	type step struct {
		other bool // appended by the other store
		n     int  // events in the append
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"own commits only", []step{{false, 1}, {false, 3}, {false, 2}}},
		{"another writer in between", []step{{false, 2}, {true, 1}, {false, 2}}},
		{"another writer after", []step{{false, 2}, {false, 1}, {true, 2}}},
		{"another writer first", []step{{true, 1}, {false, 2}, {false, 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "events.db")
			own := openStore(t, path, nil)
			other := openStore(t, path, nil)
			versions := map[*sqlite.Store]int64{}
			total := 0
			for _, st := range tc.steps {
				s, stream := own, "own"
				if st.other {
					s, stream = other, "other"
				}
				evs := make([]eventstore.EventData, st.n)
				for i := range evs {
					evs[i] = ev()
				}
				if _, err := s.Append(ctx, stream, eventstore.Exact(versions[s]), evs...); err != nil {
					t.Fatalf("Append: %v", err)
				}
				versions[s] += int64(st.n)
				total += st.n
			}
			// The reference: a store that wrote nothing reads everything from the file.
			ref := openStore(t, path, nil)
			want, err := ref.ReadAll(ctx, eventstore.Start, 100)
			if err != nil || len(want) != total {
				t.Fatalf("reference ReadAll = %d events, %v; want %d", len(want), err, total)
			}
			for from := 0; from <= total; from++ {
				for _, limit := range []int{1, 2, 100} {
					pos := eventstore.Position{Commit: uint64(from), Prepare: uint64(from)}
					got, err := own.ReadAll(ctx, pos, limit)
					if err != nil {
						t.Fatalf("ReadAll(%s, %d): %v", pos, limit, err)
					}
					var exp []eventstore.Envelope
					if from < total {
						exp = want[from:min(total, from+limit)]
					}
					gj, _ := json.Marshal(got)
					ej, _ := json.Marshal(exp)
					if string(gj) != string(ej) {
						t.Errorf("ReadAll(%s, %d) =\n%s\nwant\n%s", pos, limit, gj, ej)
					}
				}
			}
		})
	}
}
