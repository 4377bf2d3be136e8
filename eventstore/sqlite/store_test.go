package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
)

func event(typ string) eventstore.EventData {
	return eventstore.EventData{
		ID: uuid.New(), Type: typ, SchemaVersion: 1, Data: []byte(`{"k":"v"}`),
		Metadata: eventstore.Metadata{Actor: "test", Time: time.Now().UTC()},
	}
}

// A full disk (simulated with max_page_count) fails the append, leaves nothing of it visible, and the
// store goes on serving once there is room for the next one.
func TestDiskFullLeavesNothing(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, filepath.Join(t.TempDir(), "full.db"))
	db.SetMaxOpenConns(1) // max_page_count is per connection: keep to the one it is set on
	var pages int
	if err := db.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatalf("page_count: %v", err)
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages+16)); err != nil {
		t.Fatalf("max_page_count: %v", err)
	}
	s, err := sqlite.New(db, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	defer s.Close()

	first := event("small")
	if _, err := s.Append(ctx, "s", eventstore.NoStream, first); err != nil {
		t.Fatalf("small Append: %v", err)
	}
	huge := event("huge")
	huge.Data = []byte(`{"blob":"` + strings.Repeat("x", 1<<20) + `"}`)
	_, err = s.Append(ctx, "s", eventstore.Exact(1), event("small"), huge)
	if err == nil || !strings.Contains(err.Error(), "full") {
		t.Fatalf("Append past max_page_count = %v; want a database-full error", err)
	}
	envs, err := s.ReadAll(ctx, eventstore.Start, 10)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if len(envs) != 1 || envs[0].ID != first.ID {
		t.Fatalf("log after the failed append holds %d events; want only the first", len(envs))
	}
	next := event("small")
	pos, err := s.Append(ctx, "s", eventstore.Exact(1), next)
	if err != nil || pos != (eventstore.Position{Commit: 2, Prepare: 2}) {
		t.Fatalf("Append after the failure = %s, %v; want position 2", pos, err)
	}
}

// OnCommit sees every written event once, in commit order, before the appender is answered.
func TestOnCommit(t *testing.T) {
	var (
		mu      sync.Mutex
		batches [][]eventstore.Envelope
		seen    = map[uuid.UUID]bool{}
	)
	s := openStore(t, filepath.Join(t.TempDir(), "events.db"), &sqlite.Options{OnCommit: func(envs []eventstore.Envelope) {
		mu.Lock()
		defer mu.Unlock()
		batches = append(batches, envs)
		for _, env := range envs {
			seen[env.ID] = true
		}
	}})
	ctx := context.Background()
	var wg sync.WaitGroup
	for w := 0; w < 20; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				ev := event("e")
				if _, err := s.Append(ctx, fmt.Sprintf("w%d", w), eventstore.Exact(int64(i)), ev); err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				mu.Lock()
				ok := seen[ev.ID]
				mu.Unlock()
				if !ok {
					t.Errorf("Append of %s returned before OnCommit saw it", ev.ID)
				}
			}
		}(w)
	}
	wg.Wait()
	// A conflict writes nothing and calls nothing.
	calls := len(batches)
	if _, err := s.Append(ctx, "w0", eventstore.NoStream, event("e")); !errors.Is(err, eventstore.ErrConflict) {
		t.Fatalf("Append = %v; want a conflict", err)
	}
	if len(batches) != calls {
		t.Errorf("a refused append called OnCommit")
	}
	var flat []eventstore.Envelope
	for _, b := range batches {
		if len(b) == 0 {
			t.Errorf("OnCommit called with no events")
		}
		flat = append(flat, b...)
	}
	all, err := s.ReadAll(ctx, eventstore.Start, 1000)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	if len(flat) != 100 || len(all) != 100 {
		t.Fatalf("OnCommit saw %d events, the log holds %d; want 100 of each", len(flat), len(all))
	}
	for i := range all {
		if flat[i].ID != all[i].ID || flat[i].Position != all[i].Position || flat[i].Version != all[i].Version {
			t.Errorf("event %d: OnCommit saw %s at %s v%d, the log has %s at %s v%d", i, flat[i].ID, flat[i].Position, flat[i].Version, all[i].ID, all[i].Position, all[i].Version)
		}
	}
	t.Logf("%d appends in %d batches", 100, len(batches))
}

// Close commits the appends already queued: every append is either acknowledged and durable, or
// refused with ErrClosed; nothing is lost in between. Reopening the file shows exactly the
// acknowledged events.
func TestCloseFlushesAndReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.db")
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	db.Close()
	s := openStore(t, path, nil)

	var (
		mu    sync.Mutex
		acked = map[uuid.UUID]bool{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for w := 0; w < 40; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			<-start
			for i := 0; ; i++ {
				ev := event("e")
				_, err := s.Append(ctx, fmt.Sprintf("w%d", w), eventstore.Exact(int64(i)), ev)
				if errors.Is(err, eventstore.ErrClosed) {
					return
				}
				if err != nil {
					t.Errorf("Append: %v", err)
					return
				}
				mu.Lock()
				acked[ev.ID] = true
				mu.Unlock()
			}
		}(w)
	}
	close(start)
	time.Sleep(50 * time.Millisecond)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	wg.Wait()

	reopened := openStore(t, path, nil)
	var got []eventstore.Envelope
	for from := eventstore.Start; ; {
		page, err := reopened.ReadAll(ctx, from, 500)
		if err != nil {
			t.Fatalf("ReadAll: %v", err)
		}
		got = append(got, page...)
		if len(page) < 500 {
			break
		}
		from = page[len(page)-1].Position
	}
	if len(got) != len(acked) {
		t.Errorf("reopened log holds %d events; %d were acknowledged", len(got), len(acked))
	}
	for _, env := range got {
		if !acked[env.ID] {
			t.Errorf("event %s is in the log but its Append was not acknowledged", env.ID)
		}
	}
	t.Logf("%d appends acknowledged before Close", len(acked))
}
