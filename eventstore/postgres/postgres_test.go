package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for migrations.Apply

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/storetest"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// migratedDB returns the URL of a fresh database with the postgres migrations applied.
func migratedDB(t *testing.T) string {
	t.Helper()
	url := testenv.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	defer db.Close()
	if _, err := migrations.Apply(testCtx(t), db, migrations.Postgres, nil); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return url
}

// openPool opens a pool on url, closed when the test ends (after the stores on it, which are closed
// by cleanups registered later).
func openPool(t *testing.T, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(testCtx(t), url)
	if err != nil {
		t.Fatalf("pool on %s: %v", url, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// openStore opens a postgres.Store with its own pool on url.
func openStore(t *testing.T, url string, opts *postgres.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.New(testCtx(t), openPool(t, url), opts)
	if err != nil {
		t.Fatalf("postgres.New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	var mu sync.Mutex
	urls := map[eventstore.Store]string{}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) eventstore.Store {
			url := migratedDB(t)
			s := openStore(t, url, nil)
			mu.Lock()
			urls[s] = url
			mu.Unlock()
			return s
		},
		OpenPeer: func(t *testing.T, first eventstore.Store) eventstore.Store {
			mu.Lock()
			url, ok := urls[first]
			mu.Unlock()
			if !ok {
				t.Fatal("OpenPeer: store was not opened by this harness")
			}
			return openStore(t, url, nil)
		},
	})
}

func TestNewWithoutMigrations(t *testing.T) {
	url := testenv.PostgresURL(t)
	_, err := postgres.New(testCtx(t), openPool(t, url), nil)
	if err == nil {
		t.Fatal("postgres.New on an empty database succeeded; want an error naming the missing migrations")
	}
}

func event(typ string) eventstore.EventData {
	return eventstore.EventData{
		ID: uuid.New(), Type: typ, SchemaVersion: 1, Data: []byte(`{"k":"v"}`),
		Metadata: eventstore.Metadata{Actor: "tester", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
	}
}

// TestBatchDecisions drives one batch transaction directly, so the requests are certain to share it,
// and checks that each request is decided on its own.
func TestBatchDecisions(t *testing.T) {
	url := migratedDB(t)
	s := openStore(t, url, nil)
	ctx := testCtx(t)

	seeded := event("seed")
	seedPos, err := s.Append(ctx, "seeded", eventstore.NoStream, seeded)
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	retried := event("retried")

	type want struct {
		conflict bool // a *ConflictError
		err      bool // another error
		same     int  // when > 0: the same position as request same-1
		pos      *eventstore.Position
	}
	cases := []struct {
		name    string
		reqs    []eventstore.AppendRequest
		want    []want
		written int // events the batch adds to the log
	}{
		{
			name: "conflict fails alone",
			reqs: []eventstore.AppendRequest{
				{Stream: "a1", Expected: eventstore.NoStream, Events: []eventstore.EventData{event("x")}},
				{Stream: "seeded", Expected: eventstore.Exact(5), Events: []eventstore.EventData{event("x")}},
				{Stream: "a2", Expected: eventstore.Any, Events: []eventstore.EventData{event("x"), event("y")}},
			},
			want:    []want{{}, {conflict: true}, {}},
			written: 3,
		},
		{
			name: "same stream twice, second sees the first",
			reqs: []eventstore.AppendRequest{
				{Stream: "b", Expected: eventstore.NoStream, Events: []eventstore.EventData{event("x")}},
				{Stream: "b", Expected: eventstore.Exact(1), Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{}, {}},
			written: 2,
		},
		{
			name: "same stream twice, second conflicts",
			reqs: []eventstore.AppendRequest{
				{Stream: "c", Expected: eventstore.NoStream, Events: []eventstore.EventData{event("x")}},
				{Stream: "c", Expected: eventstore.NoStream, Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{}, {conflict: true}},
			written: 1,
		},
		{
			name: "retry inside the batch returns the first position",
			reqs: []eventstore.AppendRequest{
				{Stream: "d", Expected: eventstore.NoStream, Events: []eventstore.EventData{retried}},
				{Stream: "d", Expected: eventstore.NoStream, Events: []eventstore.EventData{retried}},
			},
			want:    []want{{}, {same: 1}},
			written: 1,
		},
		{
			name: "retry of a committed append returns its position",
			reqs: []eventstore.AppendRequest{
				{Stream: "seeded", Expected: eventstore.NoStream, Events: []eventstore.EventData{seeded}},
				{Stream: "e", Expected: eventstore.Any, Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{pos: &seedPos}, {}},
			written: 1,
		},
		{
			name: "id stored in another stream",
			reqs: []eventstore.AppendRequest{
				{Stream: "f", Expected: eventstore.Any, Events: []eventstore.EventData{seeded}},
				{Stream: "f2", Expected: eventstore.Any, Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{err: true}, {}},
			written: 1,
		},
		{
			name: "text PostgreSQL cannot store",
			reqs: []eventstore.AppendRequest{
				{Stream: "nul\x00byte", Expected: eventstore.Any, Events: []eventstore.EventData{event("x")}},
				{Stream: "g", Expected: eventstore.Any, Events: []eventstore.EventData{event("bad\xffutf8")}},
				{Stream: "g2", Expected: eventstore.Any, Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{err: true}, {err: true}, {}},
			written: 1,
		},
		{
			name: "nothing to write",
			reqs: []eventstore.AppendRequest{
				{Stream: "seeded", Expected: eventstore.NoStream, Events: []eventstore.EventData{event("x")}},
			},
			want:    []want{{conflict: true}},
			written: 0,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := countEvents(t, s)
			outs, err := postgres.Commit(ctx, s, tc.reqs)
			if err != nil {
				t.Fatalf("commit: %v", err)
			}
			for i, out := range outs {
				w := tc.want[i]
				_, isConflict := errors.AsType[*eventstore.ConflictError](out.Err)
				switch {
				case w.conflict && !isConflict:
					t.Errorf("request %d: err = %v, want a conflict", i, out.Err)
				case w.err && (out.Err == nil || isConflict):
					t.Errorf("request %d: err = %v, want a non-conflict error", i, out.Err)
				case !w.conflict && !w.err && out.Err != nil:
					t.Errorf("request %d: %v", i, out.Err)
				case w.same > 0 && out.Position != outs[w.same-1].Position:
					t.Errorf("request %d: position %s, want %s (the retried request's)", i, out.Position, outs[w.same-1].Position)
				case w.pos != nil && out.Position != *w.pos:
					t.Errorf("request %d: position %s, want %s", i, out.Position, *w.pos)
				case out.Err == nil && out.Position.IsZero():
					t.Errorf("request %d succeeded with the zero position", i)
				}
			}
			if got := countEvents(t, s) - before; got != tc.written {
				t.Errorf("batch wrote %d events, want %d", got, tc.written)
			}
		})
	}
}

func countEvents(t *testing.T, s *postgres.Store) int {
	t.Helper()
	var n int
	if err := postgres.Pool(s).QueryRow(testCtx(t), `SELECT count(*) FROM events`).Scan(&n); err != nil {
		t.Fatalf("count: %v", err)
	}
	return n
}

// TestOnCommit checks that OnCommit sees a batch's events before their appenders are answered.
func TestOnCommit(t *testing.T) {
	var mu sync.Mutex
	seen := map[uuid.UUID]eventstore.Envelope{}
	calls := 0
	s := openStore(t, migratedDB(t), &postgres.Options{OnCommit: func(envs []eventstore.Envelope) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		for i, env := range envs {
			if i > 0 && !envs[i-1].Position.Less(env.Position) {
				t.Errorf("OnCommit: envelopes out of order: %s then %s", envs[i-1].Position, env.Position)
			}
			seen[env.ID] = env
		}
	}})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ev := event("on.commit")
			pos, err := s.Append(ctx, fmt.Sprintf("oc-%d", i), eventstore.NoStream, ev)
			if err != nil {
				t.Errorf("append: %v", err)
				return
			}
			mu.Lock()
			env, ok := seen[ev.ID]
			mu.Unlock()
			if !ok {
				t.Errorf("append of %s returned before OnCommit saw it", ev.ID)
			} else if env.Position != pos {
				t.Errorf("OnCommit position %s, Append returned %s", env.Position, pos)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if calls == 0 || calls > 20 {
		t.Errorf("OnCommit called %d times for 20 appends", calls)
	}
}

// TestSubscribeWokenByNotify: a subscriber on one store sees another store's append through
// LISTEN/NOTIFY. Its poll interval is an hour and the append comes after its listener's second
// wake-up (peerGrace), so only the notification can wake it in time.
func TestSubscribeWokenByNotify(t *testing.T) {
	url := migratedDB(t)
	writer := openStore(t, url, nil)
	reader := openStore(t, url, &postgres.Options{PollInterval: time.Hour})
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()

	got := make(chan eventstore.Envelope, 1)
	done := make(chan error, 1)
	go func() {
		done <- reader.Subscribe(ctx, eventstore.Start, func(env eventstore.Envelope) error {
			got <- env
			return nil
		})
	}()
	// Give the subscriber time to catch up on the empty log and start waiting, and its listener time
	// to be connected for longer than peerGrace, so that the event can only reach it through a
	// notification (the writer must have seen the reader's listener by then).
	time.Sleep(postgres.PeerGrace + 3*postgres.PeerCheck)
	// On a loaded machine the writer's peer check may not have run yet: wait until it has seen the
	// reader's listener (otherwise it would append without notifying, and nothing would wake the reader).
	eventually(t, "the writer to see the reader's listener and notify", func() bool { return postgres.NotifyWanted(writer) })
	ev := event("notified")
	if _, err := writer.Append(ctx, "n", eventstore.NoStream, ev); err != nil {
		t.Fatalf("append: %v", err)
	}
	receive(t, got, ev, "subscriber on the other store was not woken by NOTIFY")
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Subscribe after cancel = %v, want context.Canceled", err)
	}
}

// eventually waits up to 20 s for cond, checking every 10 ms.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNotifyOnlyWithPeers: a store alone on its database stops notifying; a second store's listener
// turns notifications back on for both, and closing it turns them off again.
func TestNotifyOnlyWithPeers(t *testing.T) {
	url := migratedDB(t)
	a := openStore(t, url, nil)
	eventually(t, "a lone store still notifies", func() bool { return !postgres.NotifyWanted(a) })

	b, err := postgres.New(testCtx(t), openPool(t, url), nil)
	if err != nil {
		t.Fatalf("postgres.New: %v", err)
	}
	eventually(t, "the first store does not notify with a second one listening", func() bool { return postgres.NotifyWanted(a) })
	eventually(t, "the second store does not notify with the first one listening", func() bool { return postgres.NotifyWanted(b) })
	b.Close()
	eventually(t, "the first store notifies once it is alone again", func() bool { return !postgres.NotifyWanted(a) })
}

// TestNewListenerSeesUnnotifiedAppends: a store that has not yet seen a new listener appends without
// notifying; the new store's subscriber (polling only hourly, and already waiting) still reads the
// event, through the wake-up its listener makes peerGrace after connecting. Whether the writer had
// seen the new listener when it appended depends on where its peerCheck ticker stood (the test logs
// which); either way the event must arrive.
func TestNewListenerSeesUnnotifiedAppends(t *testing.T) {
	url := migratedDB(t)
	writer := openStore(t, url, nil)
	eventually(t, "a lone store still notifies", func() bool { return !postgres.NotifyWanted(writer) })
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	reader := openStore(t, url, &postgres.Options{PollInterval: time.Hour})
	got := make(chan eventstore.Envelope, 2)
	go reader.Subscribe(ctx, eventstore.Start, func(env eventstore.Envelope) error { //nolint:errcheck // ends with ctx
		got <- env
		return nil
	})
	// The reader's own append wakes its subscriber at once: once that event is read, the subscriber
	// has caught up and waits.
	ready := event("ready")
	if _, err := reader.Append(ctx, "r", eventstore.NoStream, ready); err != nil {
		t.Fatalf("append: %v", err)
	}
	select {
	case <-got:
	case <-time.After(20 * time.Second):
		t.Fatal("the subscriber never read its own store's event")
	}
	notified := postgres.NotifyWanted(writer)
	ev := event("unnotified")
	if _, err := writer.Append(ctx, "u", eventstore.NoStream, ev); err != nil {
		t.Fatalf("append: %v", err)
	}
	t.Logf("the writer had seen the new listener when it appended: %v", notified)
	receive(t, got, ev, "the new store's subscriber never read an event appended while the writer thought itself alone")
}

// TestKnownHeadsSkipTheVersionCheck: appends expecting a version this store has seen committed take
// the plain one-statement insert; one expecting a version the stream has not reached is refused with a
// conflict, whether the store knows the stream or not, and one expecting a version the stream has
// passed is refused too.
func TestKnownHeadsSkipTheVersionCheck(t *testing.T) {
	url := migratedDB(t)
	s := openStore(t, url, nil)
	other := openStore(t, url, nil)
	ctx := testCtx(t)
	for v := range 3 {
		if _, err := s.Append(ctx, "known", eventstore.Exact(int64(v)), event("e")); err != nil {
			t.Fatalf("append %d: %v", v, err)
		}
	}
	if got := postgres.FastBatches(s); got != 3 {
		t.Errorf("%d one-round-trip batches, want 3", got)
	}
	// Ahead of the stream: refused by the check (the store knows the stream is at 3, not 5).
	_, err := s.Append(ctx, "known", eventstore.Exact(5), event("e"))
	var conflict *eventstore.ConflictError
	if !errors.As(err, &conflict) || conflict.Actual != 3 {
		t.Fatalf("append expecting 5 on a stream at 3: %v, want a conflict at 3", err)
	}
	// Another store moves the stream on: this store's head is now behind, and the unique index
	// refuses its plain insert; the conflict names the real version.
	if _, err := other.Append(ctx, "known", eventstore.Exact(3), event("e")); err != nil {
		t.Fatalf("other store's append: %v", err)
	}
	_, err = s.Append(ctx, "known", eventstore.Exact(3), event("e"))
	if !errors.As(err, &conflict) || conflict.Actual != 4 {
		t.Fatalf("append expecting 3 on a stream at 4: %v, want a conflict at 4", err)
	}
	// Never seen by this store, and not that far: refused.
	_, err = s.Append(ctx, "unseen", eventstore.Exact(2), event("e"))
	if !errors.As(err, &conflict) || conflict.Actual != 0 {
		t.Fatalf("append expecting 2 on an empty stream: %v, want a conflict at 0", err)
	}
	// What the refusals read is known now: the next append goes straight through.
	if _, err := s.Append(ctx, "known", eventstore.Exact(4), event("e")); err != nil {
		t.Fatalf("append expecting 4: %v", err)
	}
	envs, err := s.Load(ctx, "known", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, env := range envs {
		if env.Version != int64(i+1) {
			t.Fatalf("event %d has version %d", i, env.Version)
		}
	}
	if len(envs) != 5 {
		t.Fatalf("stream holds %d events, want 5", len(envs))
	}
}

// receive waits up to 20 s (a guard against a hang, not a timing assertion) for the next envelope on
// got and checks that it is want; failing says why it never came.
func receive(t *testing.T, got <-chan eventstore.Envelope, want eventstore.EventData, never string) {
	t.Helper()
	select {
	case env := <-got:
		if env.ID != want.ID {
			t.Errorf("got event %s, want %s", env.ID, want.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal(never)
	}
}

// TestListenerReconnectsAfterRestart: after the server restarts, an append at once succeeds (it
// passes over the pooled connections the restart ended), a store's listener reconnects, and a
// subscriber that polls only once an hour is woken again by another store's append, through NOTIFY.
// The subscriber resubscribes after the outage, as the projections runner does.
func TestListenerReconnectsAfterRestart(t *testing.T) {
	cluster := testenv.NewCluster(t)
	{
		db, err := sql.Open("pgx", cluster.URL())
		if err != nil {
			t.Fatal(err)
		}
		_, err = migrations.Apply(testCtx(t), db, migrations.Postgres, nil)
		db.Close()
		if err != nil {
			t.Fatalf("migrate: %v", err)
		}
	}
	writer := openStore(t, cluster.URL(), nil)
	reader := openStore(t, cluster.URL(), &postgres.Options{PollInterval: time.Hour})
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	got := make(chan eventstore.Envelope, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		from := eventstore.Start
		for ctx.Err() == nil {
			_ = reader.Subscribe(ctx, from, func(env eventstore.Envelope) error {
				from = env.Position
				got <- env
				return nil
			})
			time.Sleep(50 * time.Millisecond)
		}
	}()
	eventually(t, "the reader's listener connects", func() bool { return postgres.ListenerPID(reader) != 0 })

	cluster.Stop()
	eventually(t, "the reader sees its listener gone", func() bool { return postgres.ListenerPID(reader) == 0 })
	cluster.Start()
	back := time.Now()
	// An append at once passes over the pooled connections the restart ended.
	first := event("right-after-restart")
	if _, err := writer.Append(ctx, "r0", eventstore.NoStream, first); err != nil {
		t.Fatalf("append right after the restart: %v", err)
	}
	receive(t, got, first, "subscriber never saw the append made right after the restart")
	eventually(t, "the reader's listener reconnects after the restart", func() bool { return postgres.ListenerPID(reader) != 0 })
	t.Logf("listener back %s after the restart", time.Since(back).Round(time.Millisecond))

	// As in TestSubscribeWokenByNotify: past the listener's own wake-ups, only a notification wakes
	// the reader in time.
	time.Sleep(postgres.PeerGrace + 3*postgres.PeerCheck)
	ev := event("after-restart")
	if _, err := writer.Append(ctx, "r", eventstore.NoStream, ev); err != nil {
		t.Fatalf("append after the restart: %v", err)
	}
	receive(t, got, ev, "subscriber was not woken by NOTIFY after the restart")
	cancel()
	<-done
}
