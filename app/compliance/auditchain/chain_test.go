package auditchain_test

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// backend is a migrated database with its event store. fresh opens another store over the same
// database, with nothing cached, as `workbench audit verify` does in a process of its own.
type backend struct {
	name    string
	db      *sql.DB
	store   eventstore.Store
	fresh   func(t testing.TB) eventstore.Store
	dialect migrations.Dialect
	gate    *sqlite.WriteGate // SQLite only
	url     string            // PostgreSQL only
}

// gateOf is the write gate the sealer shares with the store (none on PostgreSQL).
func gateOf(b backend) auditchain.WriteGate {
	if b.gate == nil {
		return nil
	}
	return b.gate
}

func openSQLite(t testing.TB) backend {
	db := testenv.MigratedSQLite(t)
	// One write gate for every writer of the file, the store and the sealer, as the server has.
	gate := sqlite.NewWriteGate()
	open := func(t testing.TB) eventstore.Store {
		st, err := sqlite.New(db, &sqlite.Options{WriteGate: gate})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return backend{name: "sqlite", db: db, store: open(t), dialect: migrations.SQLite, fresh: open, gate: gate}
}

func openPostgres(t testing.TB) backend {
	url := testenv.PostgresURL(t)
	ctx := context.Background()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	open := func(t testing.TB) eventstore.Store {
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		st, err := postgres.New(ctx, pool, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return backend{name: "postgres", db: db, store: open(t), dialect: migrations.Postgres, fresh: open, url: url}
}

func forEach(t *testing.T, f func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) { f(t, openSQLite(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, openPostgres(t)) })
}

func event(i int) eventstore.EventData {
	data, _ := json.Marshal(map[string]any{"n": i, "note": fmt.Sprintf("event %d", i)})
	return eventstore.EventData{
		ID: uuid.New(), Type: "test.happened", SchemaVersion: 1, Data: data,
		Metadata: eventstore.Metadata{Actor: "tester", CorrelationID: fmt.Sprint(i), Time: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)},
	}
}

// appendEvents appends n events, one per append, over three streams, and returns them as stored.
func appendEvents(t *testing.T, b backend, n int) []eventstore.Envelope {
	t.Helper()
	ctx := context.Background()
	for i := 1; i <= n; i++ {
		if _, err := b.store.Append(ctx, fmt.Sprintf("thing-%d", i%3), eventstore.Any, event(i)); err != nil {
			t.Fatal(err)
		}
	}
	return visible(t, b, n)
}

// visible waits until readers see n events and returns them. On PostgreSQL an event becomes visible only
// once every transaction older than its own has ended, anywhere on the server (other tests' databases
// included), so a read right after an append may not see it yet.
func visible(t testing.TB, b backend, n int) []eventstore.Envelope {
	t.Helper()
	ctx := context.Background()
	st := b.fresh(t)
	deadline := time.Now().Add(time.Minute)
	for {
		envs, err := st.ReadAll(ctx, eventstore.Start, n+10)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == n {
			return envs
		}
		if len(envs) > n || time.Now().After(deadline) {
			t.Fatalf("readers see %d events, want %d", len(envs), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var fixedNow = time.Date(2026, 2, 1, 12, 0, 0, 0, time.UTC)

func newKey(t testing.TB) ed25519.PrivateKey {
	_, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	return priv
}

// sealed builds a log of 30 events chained and sealed every 10.
func sealed(t *testing.T, b backend) ([]eventstore.Envelope, ed25519.PrivateKey) {
	t.Helper()
	envs := appendEvents(t, b, 30)
	key := newKey(t)
	s, err := auditchain.NewSealer(b.db, b.store, key, &auditchain.SealerOptions{Every: 10, Interval: time.Hour, Gate: gateOf(b), Now: func() time.Time { return fixedNow }})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Sync(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	if st.Chained != 30 || st.Head.Seq != 30 || st.LastSeal.Seq != 30 {
		t.Fatalf("sync: %+v", st)
	}
	return envs, key
}

func verify(t *testing.T, b backend, pub ed25519.PublicKey, r auditchain.Range) auditchain.Report {
	t.Helper()
	rep, err := auditchain.Verify(context.Background(), b.db, b.fresh(t), pub, r, &auditchain.VerifyOptions{PageSize: 7})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func pubOf(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

// unlock drops the append-only triggers, as an attacker with the database's owner rights can.
func unlock(t *testing.T, b backend) {
	t.Helper()
	stmts := []string{`DROP TRIGGER events_append_only_update`, `DROP TRIGGER events_append_only_delete`}
	if b.dialect == migrations.Postgres {
		stmts = []string{`ALTER TABLE events DISABLE TRIGGER USER`}
	}
	exec(t, b, stmts...)
}

func exec(t *testing.T, b backend, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := b.db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// pos is the position column of an event: the whole position on SQLite, its sequence part on PostgreSQL.
func pos(env eventstore.Envelope) uint64 { return env.Position.Prepare }

func wantProblem(t *testing.T, rep auditchain.Report, kind string, at eventstore.Position) {
	t.Helper()
	if rep.Problem == nil {
		t.Fatalf("verify passed (%d events, %d seals); want %s at %s", rep.Events, rep.Seals, kind, at)
	}
	if rep.Problem.Kind != kind || rep.Problem.Position != at {
		t.Fatalf("verify found %s; want %s at %s", rep.Problem, kind, at)
	}
}

func TestCleanLogVerifies(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		envs, key := sealed(t, b)
		rep := verify(t, b, pubOf(key), auditchain.Range{})
		if !rep.OK() || rep.Events != 30 || rep.Seals != 3 || rep.Unsealed != 0 || rep.Unchained != 0 || rep.Last != envs[29].Position {
			t.Fatalf("clean log: %+v problem %v", rep, rep.Problem)
		}
		// A range checks only its events, and the seals inside it.
		rep = verify(t, b, pubOf(key), auditchain.Range{From: envs[10].Position, To: envs[19].Position})
		if !rep.OK() || rep.Events != 10 || rep.Seals != 1 || rep.First != envs[10].Position || rep.Last != envs[19].Position {
			t.Fatalf("range: %+v problem %v", rep, rep.Problem)
		}
		// Events the sealer has not reached yet are the unchained window, not a failure.
		for i := 0; i < 4; i++ {
			if _, err := b.store.Append(context.Background(), "late", eventstore.Any, event(100+i)); err != nil {
				t.Fatal(err)
			}
		}
		visible(t, b, 34)
		rep = verify(t, b, pubOf(key), auditchain.Range{})
		if !rep.OK() || rep.Events != 30 || rep.Unchained != 4 {
			t.Fatalf("with an unchained tail: %+v problem %v", rep, rep.Problem)
		}
	})
}

func TestSealsVerifyOnlyWithTheirKey(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		envs, key := sealed(t, b)
		seal, ok, err := auditchain.LatestSeal(context.Background(), b.db)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if !seal.Verify(pubOf(key)) || seal.Verify(pubOf(newKey(t))) {
			t.Fatal("a seal must verify with its key and no other")
		}
		// Through JSON, as `audit seal-head` prints it.
		var back auditchain.Seal
		raw, _ := json.Marshal(seal)
		if err := json.Unmarshal(raw, &back); err != nil || !back.Verify(pubOf(key)) || back.Position != envs[29].Position {
			t.Fatalf("seal through JSON: %s %v", raw, err)
		}
		wantProblem(t, verify(t, b, pubOf(newKey(t)), auditchain.Range{}), auditchain.BadSeal, envs[9].Position)
	})
}

func TestVerifyNamesTheFirstTamperedPosition(t *testing.T) {
	type attack struct {
		name string
		do   func(t *testing.T, b backend, envs []eventstore.Envelope) (kind string, at eventstore.Position)
	}
	attacks := []attack{
		{"edit data", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			q := `UPDATE events SET data = '{"n":999}' WHERE position = %d`
			if b.dialect == migrations.Postgres {
				q = `UPDATE events SET data = convert_to('{"n":999}', 'UTF8') WHERE position = %d`
			}
			exec(t, b, fmt.Sprintf(q, pos(envs[11])))
			return auditchain.Edited, envs[11].Position
		}},
		{"edit metadata", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			q := `UPDATE events SET metadata = json_set(metadata, '$.actor', 'mallory') WHERE position = %d`
			if b.dialect == migrations.Postgres {
				q = `UPDATE events SET metadata = jsonb_set(metadata, '{actor}', '"mallory"') WHERE position = %d`
			}
			exec(t, b, fmt.Sprintf(q, pos(envs[14])))
			return auditchain.Edited, envs[14].Position
		}},
		{"edit type", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			exec(t, b, fmt.Sprintf(`UPDATE events SET type = 'test.other' WHERE position = %d`, pos(envs[3])))
			return auditchain.Edited, envs[3].Position
		}},
		{"delete", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			exec(t, b, fmt.Sprintf(`DELETE FROM events WHERE position = %d`, pos(envs[11])))
			return auditchain.Deleted, envs[11].Position
		}},
		{"delete event and its chain row", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			exec(t, b, fmt.Sprintf(`DELETE FROM events WHERE position = %d`, pos(envs[11])),
				`DELETE FROM audit_chain WHERE seq = 12`)
			return auditchain.Deleted, envs[12].Position
		}},
		{"swap two events", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			a, c := envs[16], envs[17]
			if b.dialect == migrations.Postgres {
				exec(t, b,
					fmt.Sprintf(`UPDATE events SET position = 1000000, xid = '%d'::xid8 WHERE position = %d`, c.Position.Commit, pos(a)),
					fmt.Sprintf(`UPDATE events SET position = %d, xid = '%d'::xid8 WHERE position = %d`, pos(a), a.Position.Commit, pos(c)),
					fmt.Sprintf(`UPDATE events SET position = %d WHERE position = 1000000`, pos(c)))
			} else {
				exec(t, b,
					fmt.Sprintf(`UPDATE events SET position = 1000000 WHERE position = %d`, pos(a)),
					fmt.Sprintf(`UPDATE events SET position = %d WHERE position = %d`, pos(a), pos(c)),
					fmt.Sprintf(`UPDATE events SET position = %d WHERE position = 1000000`, pos(c)))
			}
			return auditchain.Reordered, a.Position
		}},
		{"insert", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			ev := envs[20]
			forged := fmt.Sprintf(`'%s', 'thing-1', 99, 'test.happened', 1`, uuid.New())
			if b.dialect == migrations.Postgres {
				// Behind event 21 in the read order: its transaction id, a later sequence number.
				before := envs[20]
				exec(t, b, fmt.Sprintf(`INSERT INTO events (position, xid, id, stream, version, type, schema_version, data, metadata)
					VALUES (%d, '%d'::xid8, %s, convert_to('{"n":0}', 'UTF8'), '{"actor":"mallory","time":"2026-01-01T00:00:00Z"}')`,
					pos(before)+1000000, before.Position.Commit, forged))
				var p int64 = int64(pos(before)) + 1000000
				return auditchain.Inserted, eventstore.Position{Commit: before.Position.Commit, Prepare: uint64(p)}
			}
			// SQLite positions have no gaps: make room after event 21, then fill it.
			exec(t, b,
				fmt.Sprintf(`UPDATE events SET position = position + 1000000 WHERE position > %d`, pos(ev)),
				`UPDATE events SET position = position - 999999 WHERE position > 1000000`,
				fmt.Sprintf(`INSERT INTO events (position, id, stream, version, type, schema_version, data, metadata)
					VALUES (%d, %s, '{"n":0}', '{"actor":"mallory","time":"2026-01-01T00:00:00Z"}')`, pos(ev)+1, forged))
			return auditchain.Inserted, eventstore.Position{Commit: pos(ev) + 1, Prepare: pos(ev) + 1}
		}},
		{"truncate", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			exec(t, b, fmt.Sprintf(`DELETE FROM events WHERE position > %d`, pos(envs[24])))
			return auditchain.Truncated, envs[25].Position
		}},
		{"truncate events and chain", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			exec(t, b, fmt.Sprintf(`DELETE FROM events WHERE position > %d`, pos(envs[24])), `DELETE FROM audit_chain WHERE seq > 25`)
			return auditchain.Truncated, envs[29].Position // named by the last seal, which covers the missing tail
		}},
		{"edit and rewrite the chain", func(t *testing.T, b backend, envs []eventstore.Envelope) (string, eventstore.Position) {
			q := `UPDATE events SET data = '{"n":999}' WHERE position = %d`
			if b.dialect == migrations.Postgres {
				q = `UPDATE events SET data = convert_to('{"n":999}', 'UTF8') WHERE position = %d`
			}
			exec(t, b, fmt.Sprintf(q, pos(envs[11])))
			// Recompute every chain row from the edit on: only the seal's signature is out of reach.
			rewriteChain(t, b, 11)
			return auditchain.BadSeal, envs[19].Position
		}},
	}
	forEach(t, func(t *testing.T, b backend) {
		for _, a := range attacks {
			t.Run(strings.ReplaceAll(a.name, " ", "_"), func(t *testing.T) {
				var bb backend
				if b.dialect == migrations.Postgres {
					bb = openPostgres(t)
				} else {
					bb = openSQLite(t)
				}
				envs, key := sealed(t, bb)
				unlock(t, bb)
				kind, at := a.do(t, bb, envs)
				wantProblem(t, verify(t, bb, pubOf(key), auditchain.Range{}), kind, at)
			})
		}
	})
}

// rewriteChain recomputes audit_chain from seq after+1 on, from the events as they now stand.
func rewriteChain(t *testing.T, b backend, after int64) {
	t.Helper()
	ctx := context.Background()
	envs, err := b.fresh(t).ReadAll(ctx, eventstore.Start, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var prev auditchain.Hash
	if err := b.db.QueryRowContext(ctx, `SELECT hash FROM audit_chain WHERE seq = $1`, after).Scan((*hashScanner)(&prev)); err != nil {
		t.Fatal(err)
	}
	for i := after; i < int64(len(envs)); i++ {
		h := auditchain.Link(prev, envs[i])
		if _, err := b.db.ExecContext(ctx, `UPDATE audit_chain SET hash = $1 WHERE seq = $2`, h[:], i+1); err != nil {
			t.Fatal(err)
		}
		prev = h
	}
}

type hashScanner auditchain.Hash

func (h *hashScanner) Scan(v any) error {
	b, ok := v.([]byte)
	if !ok || len(b) != auditchain.HashSize {
		return fmt.Errorf("hash column: %T", v)
	}
	copy(h[:], b)
	return nil
}

// TestSealerFollowsConcurrentAppends runs appenders and the sealer at once: whatever order transactions
// commit in, the chain covers every event once, in read order, and verifies.
func TestSealerFollowsConcurrentAppends(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx := context.Background()
		key := newKey(t)
		s, err := auditchain.NewSealer(b.db, b.store, key, &auditchain.SealerOptions{Every: 25, PageSize: 40, Gate: gateOf(b)})
		if err != nil {
			t.Fatal(err)
		}
		const writers, each = 4, 50
		var wg sync.WaitGroup
		errs := make(chan error, writers+1)
		done := make(chan struct{})
		for w := 0; w < writers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					if _, err := b.store.Append(ctx, fmt.Sprintf("w-%d", w), eventstore.Any, event(i)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		var sealerDone sync.WaitGroup
		sealerDone.Add(1)
		go func() {
			defer sealerDone.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if _, err := s.Sync(ctx, false); err != nil {
					errs <- err
					return
				}
			}
		}()
		wg.Wait()
		close(done)
		sealerDone.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		visible(t, b, writers*each)
		st, err := s.Sync(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		if st.Head.Seq != writers*each || st.LastSeal.Seq != writers*each {
			t.Fatalf("after the appenders: %+v", st)
		}
		rep := verify(t, b, pubOf(key), auditchain.Range{})
		if !rep.OK() || rep.Events != writers*each || rep.Unsealed != 0 {
			t.Fatalf("verify: %+v problem %v", rep, rep.Problem)
		}
	})
}

// TestSealsEveryIntervalWhenSomethingIsNew: below Every events, a seal is made once the last one is
// Interval old and something new was chained, never for nothing.
func TestSealsEveryIntervalWhenSomethingIsNew(t *testing.T) {
	b := openSQLite(t)
	ctx := context.Background()
	now := fixedNow
	s, err := auditchain.NewSealer(b.db, b.store, newKey(t), &auditchain.SealerOptions{Every: 1000, Interval: 10 * time.Second, Gate: gateOf(b), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	step := func(events int, advance time.Duration, wantSealed bool, wantSeq int64) {
		t.Helper()
		for i := 0; i < events; i++ {
			if _, err := b.store.Append(ctx, "s", eventstore.Any, event(i)); err != nil {
				t.Fatal(err)
			}
		}
		now = now.Add(advance)
		st, err := s.Sync(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Sealed != wantSealed || st.LastSeal.Seq != wantSeq {
			t.Fatalf("after %d events and %s: sealed %v, last seal #%d; want %v, #%d", events, advance, st.Sealed, st.LastSeal.Seq, wantSealed, wantSeq)
		}
	}
	step(5, 0, true, 5)               // the first events are sealed at once
	step(3, time.Second, false, 5)    // 3 new, the last seal 1s old: not yet
	step(0, 9*time.Second, true, 8)   // 10s: the 3 are sealed
	step(0, 20*time.Second, false, 8) // nothing new: no seal
	rep := verify(t, b, s.PublicKey(), auditchain.Range{})
	if !rep.OK() || rep.Seals != 2 || rep.Unsealed != 0 {
		t.Fatalf("verify: %+v %v", rep, rep.Problem)
	}
}

// TestRunFollowsTheLog: Run chains what is appended while it runs; on PostgreSQL two replicas' sealers
// run under one advisory lock, so one seals at a time and the chain they leave verifies.
func TestRunFollowsTheLog(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		key := newKey(t)
		replicas := 1
		if b.url != "" {
			replicas = 2
		}
		var wg sync.WaitGroup
		for i := 0; i < replicas; i++ {
			opts := &auditchain.SealerOptions{Every: 7, Poll: 5 * time.Millisecond, Gate: gateOf(b)}
			if b.url != "" {
				opts.Lock = bus.NewAdvisoryLock(b.url, bus.AdvisoryLockKey("auditchain-test"), 20*time.Millisecond, nil)
			}
			s, err := auditchain.NewSealer(b.db, b.store, key, opts)
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.Run(ctx); err != context.Canceled {
					t.Errorf("Run returned %v", err)
				}
			}()
		}
		const n = 40
		for i := 0; i < n; i++ {
			if _, err := b.store.Append(ctx, "run", eventstore.Any, event(i)); err != nil {
				t.Fatal(err)
			}
		}
		// Wait (on the sealer's progress, not a clock) until the chain covers every event.
		for {
			var seq int64
			if err := b.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM audit_chain`).Scan(&seq); err != nil {
				t.Fatal(err)
			}
			if seq == n {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		wg.Wait()
		rep := verify(t, b, pubOf(key), auditchain.Range{})
		if !rep.OK() || rep.Events != n || rep.Seals < n/7 { // seals at most 7 events apart, more when the interval struck
			t.Fatalf("verify: %+v %v", rep, rep.Problem)
		}
	})
}
