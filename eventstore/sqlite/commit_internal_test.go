package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/migrations"
)

// These tests call the Batcher's commit function directly, so that the batch holds exactly the
// requests they name, and inject failures with triggers in a real database.

func newTestStore(t *testing.T, triggers ...string) *Store {
	t.Helper()
	ctx := context.Background()
	db, err := OpenDB(ctx, filepath.Join(t.TempDir(), "events.db"))
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	for _, tr := range triggers {
		if _, err := db.ExecContext(ctx, tr); err != nil {
			t.Fatalf("create trigger: %v", err)
		}
	}
	s, err := New(db, nil)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ev(typ string) eventstore.EventData {
	return eventstore.EventData{
		ID: uuid.New(), Type: typ, SchemaVersion: 1, Data: []byte(`{"k":"v"}`),
		Metadata: eventstore.Metadata{Actor: "test", Time: time.Now().UTC()},
	}
}

func req(stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) eventstore.AppendRequest {
	return eventstore.AppendRequest{Stream: stream, Expected: expected, Events: events}
}

func logIDs(t *testing.T, s *Store) []uuid.UUID {
	t.Helper()
	envs, err := s.ReadAll(context.Background(), eventstore.Start, 1000)
	if err != nil {
		t.Fatalf("ReadAll: %v", err)
	}
	ids := make([]uuid.UUID, len(envs))
	for i, env := range envs {
		if env.Position != position(int64(i+1)) {
			t.Errorf("event %d is at %s; positions must be gap-free from 1", i, env.Position)
		}
		ids[i] = env.ID
	}
	return ids
}

func sameIDs(got, want []uuid.UUID) bool {
	return fmt.Sprint(got) == fmt.Sprint(want)
}

// A request that fails in the middle of its own rows (the second of three events is refused by a
// trigger) leaves none of its rows, and the rest of the batch commits around it.
func TestCommitRequestFailsAlone(t *testing.T) {
	s := newTestStore(t, `CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.type = 'poison'
		BEGIN SELECT RAISE(ABORT, 'poisoned event'); END`)
	a1, a2, a3 := ev("ok"), ev("ok"), ev("ok")
	b1, b2, b3 := ev("ok"), ev("poison"), ev("ok")
	c1 := ev("ok")
	batch := []eventstore.AppendRequest{
		req("a", eventstore.NoStream, a1, a2),
		req("b", eventstore.NoStream, b1, b2, b3),
		req("a", eventstore.Exact(2), a3),           // sees the first request's versions
		req("b", eventstore.NoStream, c1),           // b is still empty: the failed request left nothing
		req("c", eventstore.NoStream, a1),           // a1's id is taken, in another stream
		req("a", eventstore.Exact(1), ev("late")),   // a is at 3 by now
		req("a", eventstore.Exact(0), a1, a2),       // the retry of the first request: same positions
		req("d", eventstore.NoStream, ev("poison")), // refused alone again, after the others
	}
	out, err := s.commit(context.Background(), batch)
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	for i, tc := range []struct {
		name    string
		pos     int64  // when the request succeeds
		errPart string // when it fails
	}{
		{name: "first on a", pos: 2},
		{name: "poisoned on b", errPart: "poisoned event"},
		{name: "second on a", pos: 3},
		{name: "b still empty after the failure", pos: 4},
		{name: "reused id", errPart: "already stored"},
		{name: "conflict", errPart: "stream is at version 3"},
		{name: "idempotent retry", pos: 2},
		{name: "poisoned on d", errPart: "poisoned event"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := out[i]
			if tc.errPart == "" {
				if got.Err != nil || got.Position != position(tc.pos) {
					t.Errorf("outcome = %s, %v; want %d, no error", got.Position, got.Err, tc.pos)
				}
				return
			}
			if got.Err == nil || !strings.Contains(got.Err.Error(), tc.errPart) {
				t.Errorf("outcome error = %v; want one containing %q", got.Err, tc.errPart)
			}
		})
	}
	if reused := out[4].Err; !errors.Is(reused, eventstore.ErrEventIDReused) {
		t.Errorf("reused id outcome = %v; want ErrEventIDReused", reused)
	}
	if conflict := out[5].Err; !errors.Is(conflict, eventstore.ErrConflict) {
		t.Errorf("conflict outcome = %v; want ErrConflict", conflict)
	}
	if got, want := logIDs(t, s), []uuid.UUID{a1.ID, a2.ID, a3.ID, c1.ID}; !sameIDs(got, want) {
		t.Errorf("log = %v; want %v", got, want)
	}
	if len(s.rows) != 4 {
		t.Errorf("the batch reports %d written events for OnCommit; want 4", len(s.rows))
	}
}

// A failure that ends the transaction itself (here a trigger's RAISE(ROLLBACK), standing for an I/O
// error) fails every request of the batch and leaves none of it visible; the store goes on.
func TestCommitTransactionLost(t *testing.T) {
	s := newTestStore(t, `CREATE TRIGGER doom BEFORE INSERT ON events WHEN NEW.type = 'doom'
		BEGIN SELECT RAISE(ROLLBACK, 'transaction doomed'); END`)
	before := ev("ok")
	if _, err := s.Append(context.Background(), "a", eventstore.NoStream, before); err != nil {
		t.Fatalf("Append: %v", err)
	}
	batch := []eventstore.AppendRequest{
		req("a", eventstore.Exact(1), ev("ok"), ev("ok")),
		req("b", eventstore.NoStream, ev("ok"), ev("doom"), ev("ok")),
		req("c", eventstore.NoStream, ev("ok")),
	}
	if _, err := s.commit(context.Background(), batch); err == nil || !strings.Contains(err.Error(), "transaction doomed") {
		t.Fatalf("commit = %v; want the batch to fail with the trigger's message", err)
	}
	if s.rows != nil {
		t.Errorf("a failed batch still reports %d written events", len(s.rows))
	}
	if got, want := logIDs(t, s), []uuid.UUID{before.ID}; !sameIDs(got, want) {
		t.Errorf("log = %v; want only the event before the failed batch %v", got, want)
	}
	after := ev("ok")
	pos, err := s.Append(context.Background(), "a", eventstore.Exact(1), after)
	if err != nil || pos != position(2) {
		t.Fatalf("Append after the failed batch = %s, %v; want position 2", pos, err)
	}
	if got, want := logIDs(t, s), []uuid.UUID{before.ID, after.ID}; !sameIDs(got, want) {
		t.Errorf("log = %v; want %v", got, want)
	}
}

// TestCommitDecisions: requests are decided in Go, in order, against the versions and ids that the
// log and the earlier requests of the batch leave; only a refusal the database alone can see (a reused
// id of an append whose version matched, so its ids were not looked up) sends the batch request by
// request.
func TestCommitDecisions(t *testing.T) {
	type want struct {
		pos   int64 // when the request succeeds: its last event's position
		errIs error // when it fails
	}
	s1, s2, o1 := ev("seed"), ev("seed"), ev("other") // at positions 1, 2 ("seeded") and 3 ("other")
	x, y, r := ev("x"), ev("y"), ev("r")
	for _, tc := range []struct {
		name     string
		batch    []eventstore.AppendRequest
		want     []want
		log      []uuid.UUID // the events after the seeds
		oneByOne int         // batches written again request by request
	}{
		{
			name: "new appends",
			batch: []eventstore.AppendRequest{
				req("a", eventstore.NoStream, x),
				req("a", eventstore.Exact(1), y),
				req("seeded", eventstore.Exact(2), r),
			},
			want: []want{{pos: 4}, {pos: 5}, {pos: 6}},
			log:  []uuid.UUID{x.ID, y.ID, r.ID},
		},
		{
			name: "retries of committed appends",
			batch: []eventstore.AppendRequest{
				req("seeded", eventstore.NoStream, s1, s2),
				req("seeded", eventstore.Any, s1, s2),
				req("seeded", eventstore.Exact(1), s2),
				req("a", eventstore.NoStream, x),
			},
			want: []want{{pos: 2}, {pos: 2}, {pos: 2}, {pos: 4}},
			log:  []uuid.UUID{x.ID},
		},
		{
			name: "retries inside the batch",
			batch: []eventstore.AppendRequest{
				req("a", eventstore.NoStream, x, y),
				req("a", eventstore.NoStream, x, y),
				req("a", eventstore.Any, y),
				req("a", eventstore.Exact(2), r),
			},
			want: []want{{pos: 5}, {pos: 5}, {pos: 5}, {pos: 6}},
			log:  []uuid.UUID{x.ID, y.ID, r.ID},
		},
		{
			name: "conflicts and reused ids seen in Go",
			batch: []eventstore.AppendRequest{
				req("seeded", eventstore.Exact(1), x),
				req("a", eventstore.Any, s1),
				req("a", eventstore.NoStream, y),
				req("b", eventstore.NoStream, y),
				req("other", eventstore.NoStream, s2),
			},
			want: []want{{errIs: eventstore.ErrConflict}, {errIs: eventstore.ErrEventIDReused}, {pos: 4}, {errIs: eventstore.ErrEventIDReused}, {errIs: eventstore.ErrEventIDReused}},
			log:  []uuid.UUID{y.ID},
		},
		{
			// Names travel to the version read as JSON; one that is not UTF-8 is read alone.
			name: "stream names JSON escapes or cannot carry",
			batch: []eventstore.AppendRequest{
				req("bad\xff", eventstore.NoStream, x),
				req("<&>\u2028\"\\", eventstore.NoStream, y),
				req("bad\xff", eventstore.Exact(1), r),
				req("<&>\u2028\"\\", eventstore.NoStream, ev("late")),
			},
			want: []want{{pos: 4}, {pos: 5}, {pos: 6}, {errIs: eventstore.ErrConflict}},
			log:  []uuid.UUID{x.ID, y.ID, r.ID},
		},
		{
			name: "a reused id only the database sees",
			batch: []eventstore.AppendRequest{
				req("a", eventstore.NoStream, x),
				req("b", eventstore.NoStream, o1),
				req("a", eventstore.Exact(1), y),
				req("seeded", eventstore.Exact(2), r, s1),
			},
			want:     []want{{pos: 4}, {errIs: eventstore.ErrEventIDReused}, {pos: 5}, {errIs: eventstore.ErrEventIDReused}},
			log:      []uuid.UUID{x.ID, y.ID},
			oneByOne: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestStore(t)
			ctx := context.Background()
			if _, err := s.Append(ctx, "seeded", eventstore.NoStream, s1, s2); err != nil {
				t.Fatalf("seed: %v", err)
			}
			if _, err := s.Append(ctx, "other", eventstore.NoStream, o1); err != nil {
				t.Fatalf("seed: %v", err)
			}
			before := s.oneByOne
			out, err := s.commit(ctx, tc.batch)
			if err != nil {
				t.Fatalf("commit: %v", err)
			}
			for i, w := range tc.want {
				got := out[i]
				switch {
				case w.errIs != nil && !errors.Is(got.Err, w.errIs):
					t.Errorf("request %d: err = %v, want %v", i, got.Err, w.errIs)
				case w.errIs == nil && (got.Err != nil || got.Position != position(w.pos)):
					t.Errorf("request %d: %s, %v; want position %d", i, got.Position, got.Err, w.pos)
				}
			}
			want := append([]uuid.UUID{s1.ID, s2.ID, o1.ID}, tc.log...)
			if got := logIDs(t, s); !sameIDs(got, want) {
				t.Errorf("log = %v; want %v", got, want)
			}
			if len(s.rows) != len(tc.log) {
				t.Errorf("the batch reports %d written events for OnCommit; want %d", len(s.rows), len(tc.log))
			}
			if got := s.oneByOne - before; got != tc.oneByOne {
				t.Errorf("batch written request by request %d times; want %d", got, tc.oneByOne)
			}
		})
	}
}

// TestCommitFreshV7Streams: a NoStream append to a stream named after a UUIDv7 has its version taken
// to be 0 without a read; when the stream exists after all, the UNIQUE index refuses the row and the
// batch, written again request by request, answers that append with a conflict (or, for a retry of
// the append that created it, its position) and commits the rest.
func TestCommitFreshV7Streams(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	exec := "execution-" + uuid.Must(uuid.NewV7()).String()
	seed := ev("seed")
	if _, err := s.Append(ctx, exec, eventstore.NoStream, seed); err != nil {
		t.Fatalf("Append: %v", err)
	}
	fresh := "execution-" + uuid.Must(uuid.NewV7()).String()
	x, y := ev("x"), ev("y")
	before := s.oneByOne
	out, err := s.commit(ctx, []eventstore.AppendRequest{
		req(fresh, eventstore.NoStream, x),
		req(exec, eventstore.NoStream, ev("again")),
		req(exec, eventstore.NoStream, seed),
		req("plain", eventstore.NoStream, y),
	})
	if err != nil {
		t.Fatalf("commit: %v", err)
	}
	if out[0].Err != nil || out[0].Position != position(2) {
		t.Errorf("fresh stream: %s, %v; want position 2", out[0].Position, out[0].Err)
	}
	if ce, ok := errors.AsType[*eventstore.ConflictError](out[1].Err); !ok || ce.Actual != 1 || ce.Stream != exec {
		t.Errorf("existing v7 stream: %v; want a conflict at version 1", out[1].Err)
	}
	if out[2].Err != nil || out[2].Position != position(1) {
		t.Errorf("retry of the seed: %s, %v; want its position 1", out[2].Position, out[2].Err)
	}
	if out[3].Err != nil || out[3].Position != position(3) {
		t.Errorf("plain stream: %s, %v; want position 3", out[3].Position, out[3].Err)
	}
	if got := s.oneByOne - before; got != 1 {
		t.Errorf("batch written request by request %d times; want 1", got)
	}
	if got, want := logIDs(t, s), []uuid.UUID{seed.ID, x.ID, y.ID}; !sameIDs(got, want) {
		t.Errorf("log = %v; want %v", got, want)
	}
	// An Any append of UUIDv7 ids is not looked up in the first pass: a retry of one meets the
	// UNIQUE index there and is answered as a retry by the second.
	v7 := func() eventstore.EventData { e := ev("v7"); e.ID = uuid.Must(uuid.NewV7()); return e }
	p1, p2 := v7(), v7()
	out, err = s.commit(ctx, []eventstore.AppendRequest{req("session-s", eventstore.Any, p1)})
	if err != nil || out[0].Err != nil || out[0].Position != position(4) {
		t.Fatalf("Any append of a v7 id: %v %v", err, out)
	}
	before = s.oneByOne
	out, err = s.commit(ctx, []eventstore.AppendRequest{req("session-s", eventstore.Any, p2), req("session-s", eventstore.Any, p1)})
	if err != nil || out[0].Err != nil || out[0].Position != position(5) || out[1].Err != nil || out[1].Position != position(4) {
		t.Fatalf("a new Any append and a retry of one: %v %v; want positions 5 and 4", err, out)
	}
	if got := s.oneByOne - before; got != 1 {
		t.Errorf("batch written request by request %d times; want 1", got)
	}
	// Alone, the fresh streams of a batch cost no version read and no second pass.
	before = s.oneByOne
	z := ev("z")
	if out, err := s.commit(ctx, []eventstore.AppendRequest{req("execution-"+uuid.Must(uuid.NewV7()).String(), eventstore.NoStream, z)}); err != nil || out[0].Err != nil {
		t.Fatalf("commit of a fresh stream: %v %v", err, out)
	}
	if s.oneByOne != before {
		t.Errorf("a fresh stream sent the batch request by request")
	}
}

// The writer connection never checkpoints in a commit; the background checkpoint copies the WAL back
// (PASSIVE), and past MaxWALPages waits for readers (RESTART) so the WAL is started over.
func TestBackgroundCheckpoint(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	if _, err := s.Append(ctx, "a", eventstore.NoStream, ev("x")); err != nil {
		t.Fatal(err)
	}
	var auto int
	if err := s.w.conn.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, %v; want 0", auto, err)
	}
	for i := range 50 {
		if _, err := s.Append(ctx, "a", eventstore.Exact(int64(i+1)), ev("x")); err != nil {
			t.Fatal(err)
		}
	}
	walPages := func() (logPages, copied int) {
		t.Helper()
		var busy int
		if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logPages, &copied); err != nil {
			t.Fatal(err)
		}
		return logPages, copied
	}
	if err := s.checkpoint(ctx); err != nil {
		t.Fatalf("checkpoint: %v", err)
	}
	if logPages, copied := walPages(); copied != logPages {
		t.Errorf("after the checkpoint %d of %d WAL pages are copied back", copied, logPages)
	}
	s.maxWALPages = 1
	if _, err := s.Append(ctx, "a", eventstore.Exact(51), ev("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.checkpoint(ctx); err != nil {
		t.Fatalf("checkpoint past MaxWALPages: %v", err)
	}
	if logPages, copied := walPages(); copied != logPages {
		t.Errorf("after a RESTART checkpoint %d of %d WAL pages are copied back", copied, logPages)
	}
}
