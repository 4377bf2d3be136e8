package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/internal/testenv"
)

// naiveReadAll is the reader this package must not be: it orders by the sequence alone and reads every
// committed row. A sequence value is taken at insert, not at commit, so a transaction that inserted
// first and commits last puts its row behind a reader that has already moved on.
func naiveReadAll(s *postgres.Store) func(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
	return func(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
		rows, err := postgres.Pool(s).Query(ctx, `SELECT `+postgres.SelectColumns+` FROM events WHERE position > $1 ORDER BY position LIMIT $2`, int64(from.Prepare), limit)
		if err != nil {
			return nil, err
		}
		envs, err := postgres.ScanEnvelopes(rows)
		for i := range envs {
			envs[i].Position.Commit = 0 // the naive checkpoint is the sequence alone
		}
		return envs, err
	}
}

// TestGlobalOrderLateCommit holds open a transaction that has inserted an event (taking the lower
// sequence value), commits another append after it, and follows the log with a checkpointing reader
// before and after the first transaction commits. The store's reader must hold the later event back
// until the earlier one commits and then return both in order; the naive reader, run through the same
// steps, must skip the late event, which shows the scenario really springs the trap.
func TestGlobalOrderLateCommit(t *testing.T) {
	cases := []struct {
		name     string
		reader   func(*postgres.Store) func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error)
		wantSkip bool
	}{
		{name: "xid order below xmin", reader: func(s *postgres.Store) func(context.Context, eventstore.Position, int) ([]eventstore.Envelope, error) {
			return s.ReadAll
		}},
		{name: "naive position order", reader: naiveReadAll, wantSkip: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			url := migratedDB(t)
			s := openStore(t, url, nil)
			read := tc.reader(s)

			// The slow writer: inserts first (lower position), commits last.
			slow, err := pgx.Connect(ctx, url)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer slow.Close(context.Background())
			tx, err := slow.Begin(ctx)
			if err != nil {
				t.Fatalf("begin: %v", err)
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck // committed below
			slowID := uuid.New()
			var slowPos int64
			if err := tx.QueryRow(ctx, `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
				VALUES ($1, 'slow', 1, 'slow.event', 1, '{}', '{}') RETURNING position`, slowID).Scan(&slowPos); err != nil {
				t.Fatalf("slow insert: %v", err)
			}

			// The fast writer commits after the slow one inserted.
			fast := event("fast.event")
			fastPos, err := s.Append(ctx, "fast", eventstore.NoStream, fast)
			if err != nil {
				t.Fatalf("fast append: %v", err)
			}
			if int64(fastPos.Prepare) <= slowPos {
				t.Fatalf("fast event position %d is not after the slow one's %d; the scenario is void", fastPos.Prepare, slowPos)
			}

			// A follower: read from its checkpoint, advance past what it got.
			var seen []uuid.UUID
			checkpoint := eventstore.Start
			follow := func() []eventstore.Envelope {
				t.Helper()
				page, err := read(ctx, checkpoint, 100)
				if err != nil {
					t.Fatalf("read after %s: %v", checkpoint, err)
				}
				for _, env := range page {
					seen = append(seen, env.ID)
					checkpoint = env.Position
				}
				return page
			}

			early := follow()
			if !tc.wantSkip && len(early) != 0 {
				t.Errorf("while the slow transaction is open, ReadAll returned %d events (first %s); want none, the fast event must wait", len(early), early[0].Stream)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatalf("slow commit: %v", err)
			}
			follow()
			// A transaction elsewhere on the server (another test's, another database's) can hold
			// the xmin line back for a while: the store's reader may delay, never skip, so keep
			// following until both events arrive or the test's deadline passes.
			for !tc.wantSkip && len(seen) < 2 && ctx.Err() == nil {
				time.Sleep(20 * time.Millisecond)
				follow()
			}

			want := []uuid.UUID{slowID, fast.ID}
			if tc.wantSkip {
				want = []uuid.UUID{fast.ID} // the naive reader passed the slow event for good
			}
			if len(seen) != len(want) {
				t.Fatalf("follower saw %v, want %v", seen, want)
			}
			for i := range want {
				if seen[i] != want[i] {
					t.Fatalf("follower saw %v, want %v", seen, want)
				}
			}
		})
	}
}

// TestReadAllLine checks where the read line falls while a transaction that holds an xid stays open:
// one in this database holds readers back (it might still write an event), one in another database
// does not (it never can).
func TestReadAllLine(t *testing.T) {
	cases := []struct {
		name       string
		sameDB     bool
		wantHidden bool
	}{
		{name: "open transaction in this database", sameDB: true, wantHidden: true},
		{name: "open transaction in another database", sameDB: false, wantHidden: false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testCtx(t)
			url := migratedDB(t)
			s := openStore(t, url, nil)
			otherURL := url
			if !tc.sameDB {
				otherURL = testenv.PostgresURL(t)
			}
			other, err := pgx.Connect(ctx, otherURL)
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer other.Close(context.Background())
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatalf("begin: %v", err)
			}
			defer tx.Rollback(context.Background()) //nolint:errcheck // only held open
			var xid uint64
			if err := tx.QueryRow(ctx, `SELECT pg_current_xact_id()`).Scan(&xid); err != nil {
				t.Fatalf("take an xid: %v", err)
			}
			ev := event("after.open.tx")
			if _, err := s.Append(ctx, "line", eventstore.NoStream, ev); err != nil {
				t.Fatalf("append: %v", err)
			}
			if tc.wantHidden {
				got, err := s.ReadAll(ctx, eventstore.Start, 10)
				if err != nil {
					t.Fatalf("ReadAll: %v", err)
				}
				if len(got) != 0 {
					t.Fatalf("ReadAll returned %d events while transaction %d of this database is open; want none", len(got), xid)
				}
				return
			}
			// Transactions of this database elsewhere (none here, but the server is shared) could
			// delay the event briefly; the open transaction in the other database must not hold it.
			deadline := time.Now().Add(10 * time.Second)
			for {
				got, err := s.ReadAll(ctx, eventstore.Start, 10)
				if err != nil {
					t.Fatalf("ReadAll: %v", err)
				}
				if len(got) == 1 && got[0].ID == ev.ID {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("ReadAll returned %d events while only another database's transaction %d is open; want the appended event", len(got), xid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// A batch whose appends name their streams' versions commits in one round trip; one the optimistic
// insert cannot take (a stream further on, or not as far, as expected; a retried id) is decided again
// with the streams locked and read, and answered as before.
func TestFastPath(t *testing.T) {
	s := openStore(t, migratedDB(t), nil)
	ctx := testCtx(t)
	ev := func() eventstore.EventData {
		return eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: "t", SchemaVersion: 1, Data: []byte(`{}`), Metadata: eventstore.Metadata{Actor: "a"}}
	}
	first := ev()
	if _, err := s.Append(ctx, "f-1", eventstore.NoStream, first, ev()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(ctx, "f-1", eventstore.Exact(2), ev()); err != nil {
		t.Fatal(err)
	}
	if got := postgres.FastBatches(s); got != 2 || postgres.RefusedFast(s) != 0 {
		t.Fatalf("fast batches %d, refused %d; want 2, 0", got, postgres.RefusedFast(s))
	}
	for _, tc := range []struct {
		name     string
		expected eventstore.ExpectedVersion
		events   []eventstore.EventData
		conflict bool
	}{
		{"no stream on an existing stream", eventstore.NoStream, []eventstore.EventData{ev()}, true},
		{"behind", eventstore.Exact(1), []eventstore.EventData{ev()}, true},
		{"ahead", eventstore.Exact(5), []eventstore.EventData{ev()}, true},
		{"retry", eventstore.NoStream, nil, false},
	} {
		refused := postgres.RefusedFast(s)
		var err error
		if tc.events == nil {
			// The first event of the first append, again: an idempotent retry of it.
			if _, err = s.Append(ctx, "f-1", tc.expected, first); err != nil {
				t.Errorf("%s: %v, want the retry answered", tc.name, err)
			}
		} else {
			_, err = s.Append(ctx, "f-1", tc.expected, tc.events...)
			if ce, ok := errors.AsType[*eventstore.ConflictError](err); !ok || ce.Actual != 3 {
				t.Errorf("%s: %v, want a conflict at version 3", tc.name, err)
			}
		}
		if postgres.RefusedFast(s) != refused+1 {
			t.Errorf("%s: the optimistic insert was not refused", tc.name)
		}
	}
	if got := mustLoadVersions(t, s, "f-1"); got != 3 {
		t.Errorf("stream f-1 holds %d events, want 3", got)
	}
}

func mustLoadVersions(t *testing.T, s *postgres.Store, stream string) int {
	t.Helper()
	envs, err := s.Load(testCtx(t), stream, 1)
	if err != nil {
		t.Fatal(err)
	}
	return len(envs)
}
