package bus_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// appendEvents appends n events, one per append, spread over streams, numbering them from first.
func appendEvents(t *testing.T, ctx context.Context, s eventstore.Store, n, streams, first int) {
	t.Helper()
	for i := range n {
		k := first + i
		ev := eventstore.EventData{
			ID:            uuid.New(),
			Type:          "thing.happened",
			SchemaVersion: 1,
			Data:          json.RawMessage(fmt.Sprintf(`{"n":%d}`, k)),
			Metadata:      eventstore.Metadata{Actor: "tester", Time: time.Now().UTC()},
		}
		if _, err := s.Append(ctx, fmt.Sprintf("thing-%d", k%streams), eventstore.Any, ev); err != nil {
			t.Fatalf("append %d: %v", k, err)
		}
	}
}

// readLog returns the whole log.
func readLog(t *testing.T, ctx context.Context, s eventstore.Store) []eventstore.Envelope {
	t.Helper()
	var all []eventstore.Envelope
	from := eventstore.Start
	for {
		envs, err := s.ReadAll(ctx, from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			return all
		}
		all = append(all, envs...)
		from = envs[len(envs)-1].Position
	}
}

// runRelay runs r until the returned stop is called; stop waits for Run to return and checks it
// returned nil.
func runRelay(t *testing.T, ctx context.Context, r *bus.Relay) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Relay.Run: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// TestRelay proves that the relay publishes everything appended to a real event store, and that a
// second Bus (a second replica's connections) receives every event exactly once after
// de-duplication, in log order: events appended before the relay started, while it ran (from
// several goroutines), and while it was stopped (it resumes from its checkpoint).
func TestRelay(t *testing.T) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			topic := uniqueTopic(t)
			u := be.url(t, topic)
			store := memory.New(nil)
			t.Cleanup(func() { store.Close() })
			pub := open(t, ctx, u, nil)
			replica := pub
			if be.shared {
				replica = open(t, ctx, u, nil)
			}
			c := newCollector()
			if _, err := replica.Subscribe(ctx, topic, c.handle); err != nil {
				t.Fatal(err)
			}
			checkpoint := bus.NewMemoryCheckpoint(eventstore.Start)
			newRelay := func() *bus.Relay {
				r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: pub, Checkpoint: checkpoint, Topic: topic, BatchSize: 16})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}

			appendEvents(t, ctx, store, 20, 3, 0) // before the relay starts
			stop := runRelay(t, ctx, newRelay())
			c.wait(t, 20)
			var wg sync.WaitGroup
			for g := range 4 { // while it runs
				wg.Add(1)
				go func() {
					defer wg.Done()
					appendEvents(t, ctx, store, 10, 1, 100*(g+1))
				}()
			}
			wg.Wait()
			c.wait(t, 60)
			stop()

			appendEvents(t, ctx, store, 15, 2, 1000) // while no relay runs
			r := newRelay()
			runRelay(t, ctx, r)
			got := c.wait(t, 75)

			want := readLog(t, ctx, store)
			if len(want) != 75 {
				t.Fatalf("log holds %d events, want 75", len(want))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("second bus received (-log +got):\n%s", diff)
			}
			deadline := time.Now().Add(10 * time.Second)
			for r.Position() != want[len(want)-1].Position && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if p, _ := checkpoint.Load(ctx); p != want[len(want)-1].Position {
				t.Errorf("checkpoint at %s, want the last event's %s", p, want[len(want)-1].Position)
			}
			raw, distinct := c.counts()
			t.Logf("%s: %d deliveries, %d distinct events", be.name, raw, distinct)
		})
	}
}

// openSQL opens a migrated database of each dialect for the checkpoint tests.
func openSQL(t *testing.T, ctx context.Context, dialect migrations.Dialect) (*sql.DB, string) {
	t.Helper()
	var db *sql.DB
	var err error
	var pgURL string
	switch dialect {
	case migrations.SQLite:
		db, err = sql.Open("sqlite", filepath.Join(t.TempDir(), "bus.db"))
	case migrations.Postgres:
		pgURL = testenv.PostgresURL(t)
		db, err = sql.Open("pgx", pgURL)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
		t.Fatalf("migrate %s: %v", dialect, err)
	}
	return db, pgURL
}

func TestSQLCheckpoint(t *testing.T) {
	for _, dialect := range []migrations.Dialect{migrations.SQLite, migrations.Postgres} {
		t.Run(string(dialect), func(t *testing.T) {
			ctx := context.Background()
			db, _ := openSQL(t, ctx, dialect)
			a, b := bus.NewSQLCheckpoint(db, "a"), bus.NewSQLCheckpoint(db, "b")
			steps := []struct {
				name string
				save *eventstore.Position
				want eventstore.Position
			}{
				{name: "nothing saved loads as Start", want: eventstore.Start},
				{name: "first save", save: &eventstore.Position{Commit: 7, Prepare: 3}, want: eventstore.Position{Commit: 7, Prepare: 3}},
				{name: "later save replaces it", save: &eventstore.Position{Commit: 1 << 40, Prepare: 1<<62 + 5}, want: eventstore.Position{Commit: 1 << 40, Prepare: 1<<62 + 5}},
			}
			for _, st := range steps {
				if st.save != nil {
					if err := a.Save(ctx, *st.save); err != nil {
						t.Fatalf("%s: %v", st.name, err)
					}
				}
				got, err := a.Load(ctx)
				if err != nil || got != st.want {
					t.Errorf("%s: Load = %s, %v; want %s", st.name, got, err, st.want)
				}
			}
			if got, err := b.Load(ctx); err != nil || got != eventstore.Start {
				t.Errorf("another relay's checkpoint: %s, %v; want Start", got, err)
			}
			if err := a.Save(ctx, eventstore.Position{Commit: 1 << 63}); err == nil {
				t.Error("saving a position past BIGINT: no error")
			}
		})
	}
}

// countingLock records how often a relay got its lock.
type countingLock struct {
	bus.Lock
	acquired atomic.Int32
}

func (l *countingLock) Acquire(ctx context.Context) (context.Context, func(), error) {
	held, release, err := l.Lock.Acquire(ctx)
	if err == nil {
		l.acquired.Add(1)
	}
	return held, release, err
}

// TestRelayTakeover runs two relays, as two replicas on one PostgreSQL would, sharing one checkpoint
// row and one advisory lock: only the holder publishes; when it dies (its session ends and it stops),
// the other takes over from the checkpoint and nothing is lost.
func TestRelayTakeover(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	db, pgURL := openSQL(t, ctx, migrations.Postgres)
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	b := open(t, ctx, "", nil)
	c := newCollector()
	if _, err := b.Subscribe(ctx, bus.EventsTopic, c.handle); err != nil {
		t.Fatal(err)
	}
	key := bus.AdvisoryLockKey("relay-takeover-test")
	relay := func() (*bus.Relay, *countingLock) {
		lock := &countingLock{Lock: bus.NewAdvisoryLock(pgURL, key, 50*time.Millisecond, nil)}
		r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: b, Lock: lock,
			Checkpoint: bus.NewSQLCheckpoint(db, bus.EventsTopic), BatchSize: 8, Backoff: 50 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return r, lock
	}
	first, firstLock := relay()
	second, secondLock := relay()

	appendEvents(t, ctx, store, 30, 3, 0)
	stopFirst := runRelay(t, ctx, first)
	c.wait(t, 30)
	runRelay(t, ctx, second)
	time.Sleep(500 * time.Millisecond) // ten of the waiting relay's tries
	if n := secondLock.acquired.Load(); n != 0 {
		t.Fatalf("the second relay got the lock %d times while the first held it", n)
	}
	if raw, _ := c.counts(); raw != 30 {
		t.Errorf("%d deliveries of 30 events while one relay published", raw)
	}

	// The first replica dies: its session ends and its process stops.
	if _, err := db.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`); err != nil {
		t.Fatal(err)
	}
	stopFirst()
	appendEvents(t, ctx, store, 25, 3, 30)
	got := c.wait(t, 55)
	if diff := cmp.Diff(readLog(t, ctx, store), got); diff != "" {
		t.Errorf("received (-log +got):\n%s", diff)
	}
	if firstLock.acquired.Load() < 1 || secondLock.acquired.Load() < 1 {
		t.Errorf("locks acquired: first %d, second %d; want the second to take over", firstLock.acquired.Load(), secondLock.acquired.Load())
	}
	last := got[len(got)-1].Position
	deadline := time.Now().Add(10 * time.Second)
	for second.Position() != last && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p, err := bus.NewSQLCheckpoint(db, bus.EventsTopic).Load(ctx); err != nil || p != last {
		t.Errorf("shared checkpoint at %s (%v), want %s", p, err, last)
	}
}

func TestRelayStopsWhenTheStoreCloses(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := memory.New(nil)
	r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: open(t, ctx, "", nil)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	appendEvents(t, ctx, store, 3, 1, 0)
	store.Close()
	select {
	case err := <-done:
		if !errors.Is(err, eventstore.ErrClosed) {
			t.Errorf("Run = %v, want ErrClosed", err)
		}
	case <-ctx.Done():
		t.Fatal("Run still running after the store closed")
	}
	if _, err := bus.NewRelay(bus.RelayConfig{Bus: nil, Store: store}); err == nil {
		t.Error("NewRelay without a bus: no error")
	}
}

// TestRelaySelect: the relay publishes the events Select accepts, in order, and none of the others,
// and its checkpoint still reaches the end of the log; Bus.Wants, what wiring selects with, follows
// the matches of the bus's subscriptions.
func TestRelaySelect(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	topic := uniqueTopic(t)
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	b := open(t, ctx, "", nil)
	if b.Wants(topic, "thing-1", "thing.happened") {
		t.Fatal("Wants with no subscription: true")
	}
	// Only stream thing-1 is asked for; a second subscriber's tally sees every message published.
	only1 := func(stream, _ string) bool { return stream == "thing-1" }
	c := newCollector()
	if _, err := b.SubscribeWhere(ctx, topic, only1, c.handle); err != nil {
		t.Fatal(err)
	}
	if !b.Wants(topic, "thing-1", "thing.happened") || b.Wants(topic, "thing-0", "thing.happened") || b.Wants("other.topic", "thing-1", "thing.happened") {
		t.Fatal("Wants does not follow the subscriptions' matches")
	}
	// A second subscriber's match sees every message published (Wants is not asked below).
	var published atomic.Int64
	if _, err := b.SubscribeWhere(ctx, topic, func(string, string) bool { published.Add(1); return false }, func(context.Context, eventstore.Envelope) error { return nil }); err != nil {
		t.Fatal(err)
	}
	checkpoint := bus.NewMemoryCheckpoint(eventstore.Start)
	r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: b, Checkpoint: checkpoint, Topic: topic, BatchSize: 4, SaveInterval: -1, Select: only1})
	if err != nil {
		t.Fatal(err)
	}
	appendEvents(t, ctx, store, 30, 3, 0)
	runRelay(t, ctx, r)
	got := c.wait(t, 10)
	var want []eventstore.Envelope
	all := readLog(t, ctx, store)
	for _, env := range all {
		if env.Stream == "thing-1" {
			want = append(want, env)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subscriber received (-want +got):\n%s", diff)
	}
	deadline := time.Now().Add(10 * time.Second)
	for (r.Position() != all[len(all)-1].Position || published.Load() < int64(len(want))) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if p := r.Position(); p != all[len(all)-1].Position {
		t.Errorf("relay position %s, want the last event's %s", p, all[len(all)-1].Position)
	}
	if n := published.Load(); n != int64(len(want)) {
		t.Errorf("%d messages published, want the %d selected", n, len(want))
	}
}
