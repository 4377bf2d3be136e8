package vault_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
)

// credentialEvent is an event that carries a sealed secret, as connection events will.
type credentialEvent struct {
	Credential domain.Sealed `json:"credential"`
}

func appendSealed(t *testing.T, store eventstore.Store, stream, typ string, s domain.Sealed) {
	t.Helper()
	data, err := json.Marshal(credentialEvent{Credential: s})
	if err != nil {
		t.Fatal(err)
	}
	ev := eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: 1, Data: data, Metadata: eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}}
	if _, err := store.Append(context.Background(), stream, eventstore.Any, ev); err != nil {
		t.Fatalf("append %s: %v", typ, err)
	}
}

// sealedInLog reads the whole log and returns every sealed credential in it, in order.
func sealedInLog(t *testing.T, store eventstore.Store) []domain.Sealed {
	t.Helper()
	var out []domain.Sealed
	from := eventstore.Start
	for {
		page, err := store.ReadAll(context.Background(), from, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return out
		}
		for _, env := range page {
			var ce credentialEvent
			if err := json.Unmarshal(env.Data, &ce); err == nil && !ce.Credential.IsZero() {
				out = append(out, ce.Credential)
			}
		}
		from = page[len(page)-1].Position
	}
}

// TestShredMakesEveryCopyUnreadable puts several copies of alice's and bob's secrets in the log,
// shreds alice, and reads the log back: none of alice's open, all of bob's do.
func TestShredMakesEveryCopyUnreadable(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		master := mustKey(t)
		v := newVault(t, db, store, master, nil, nil)
		replica := newVault(t, db, store, master, nil, nil) // another server over the same database

		secrets := map[string]string{}
		for _, c := range []struct{ subject, stream, typ, secret string }{
			{"alice", "connection-alice-github", "connection.connected", "alice github 1"},
			{"alice", "connection-alice-github", "connection.refreshed", "alice github 2"},
			{"alice", "connection-alice-slack", "connection.connected", "alice slack"},
			{"bob", "connection-bob-github", "connection.connected", "bob github"},
			{"bob", "connection-bob-github", "connection.refreshed", "bob github 2"},
		} {
			s, err := v.Seal(ctx, c.subject, purpose, []byte(c.secret))
			if err != nil {
				t.Fatal(err)
			}
			appendSealed(t, store, c.stream, c.typ, s)
			appendSealed(t, store, "audit-copy", "audit.copied", s) // a second copy of every secret
			secrets[string(s.Blob)] = c.secret
		}
		// The replica has alice's key cached before the shred.
		inLog := sealedInLog(t, store)
		if len(inLog) != 10 {
			t.Fatalf("%d sealed values in the log, want 10", len(inLog))
		}
		for _, s := range inLog {
			if _, err := replica.Open(ctx, s, purpose); err != nil {
				t.Fatalf("before shred, %s: %v", s.Subject, err)
			}
		}

		md := eventstore.Metadata{Actor: "admin", CorrelationID: "req-1"}
		if err := v.Shred(ctx, "alice", md); err != nil {
			t.Fatalf("Shred: %v", err)
		}
		replica.Forget("alice") // what the server does when the bus delivers the shred event

		for _, vv := range []*vault.Vault{v, replica, newVault(t, db, store, master, nil, nil)} {
			alice, bob := 0, 0
			for _, s := range sealedInLog(t, store) {
				got, err := vv.Open(ctx, s, purpose)
				switch s.Subject {
				case "alice":
					alice++
					if !errors.Is(err, vault.ErrShredded) {
						t.Fatalf("alice's secret after shred: %q, %v; want ErrShredded", got, err)
					}
				case "bob":
					bob++
					if err != nil || string(got) != secrets[string(s.Blob)] {
						t.Fatalf("bob's secret after alice's shred: %q, %v", got, err)
					}
				}
			}
			if alice != 6 || bob != 4 {
				t.Fatalf("read %d of alice's and %d of bob's, want 6 and 4", alice, bob)
			}
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, "alice"); n != 0 {
			t.Fatalf("alice still has %d data keys", n)
		}
		if _, err := v.Seal(ctx, "alice", purpose, []byte("again")); !errors.Is(err, vault.ErrShredded) {
			t.Fatalf("Seal for a shredded subject: %v, want ErrShredded", err)
		}

		// The shred is an event, recorded once even when repeated.
		if err := v.Shred(ctx, "alice", md); err != nil {
			t.Fatalf("second Shred: %v", err)
		}
		events, err := store.Load(ctx, vault.ShredStream("alice"), 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 {
			t.Fatalf("%d events in %s, want 1", len(events), vault.ShredStream("alice"))
		}
		ev := events[0]
		if ev.Stream != "vault-subject-alice" || ev.Type != "vault.subject_shredded" || ev.SchemaVersion != 1 ||
			string(ev.Data) != `{"subject":"alice"}` || ev.Metadata.Actor != "admin" || ev.Metadata.CorrelationID != "req-1" || ev.Metadata.Time.IsZero() {
			t.Fatalf("shred event: %+v (data %s)", ev, ev.Data)
		}
		if s, ok := vault.ShreddedSubject(ev); !ok || s != "alice" {
			t.Fatalf("ShreddedSubject = %q, %v", s, ok)
		}
	})
}

// TestCachedKeyExpires: a replica that never hears of a shred stops opening the subject's secrets
// once its cache entry expires.
func TestCachedKeyExpires(t *testing.T) {
	db, store := openSQLite(t)
	ctx := context.Background()
	master := mustKey(t)
	clock := testenv.NewClock(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	v := newVault(t, db, store, master, nil, nil)
	replica := newVault(t, db, store, master, nil, &vault.Options{CacheTTL: time.Minute, Now: clock.Now})
	s, err := v.Seal(ctx, "alice", purpose, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := replica.Open(ctx, s, purpose); err != nil {
		t.Fatal(err)
	}
	if err := v.Shred(ctx, "alice", eventstore.Metadata{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(59 * time.Second)
	if _, err := replica.Open(ctx, s, purpose); err != nil {
		t.Fatalf("within the TTL the cached key still opens (documented); got %v", err)
	}
	clock.Advance(2 * time.Second)
	if _, err := replica.Open(ctx, s, purpose); !errors.Is(err, vault.ErrShredded) {
		t.Fatalf("after the TTL: %v, want ErrShredded", err)
	}
}

// crashAfterAppend is a real event store whose Append, once it has written, cancels the context of
// the call: the vault's Shred then fails between the append and the delete, as if the process died.
type crashAfterAppend struct {
	eventstore.Store
	cancel context.CancelFunc
}

func (c crashAfterAppend) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	pos, err := c.Store.Append(ctx, stream, expected, events...)
	c.cancel()
	return pos, err
}

func TestReconcileShredsAfterCrash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		master := mustKey(t)
		v := newVault(t, db, store, master, nil, nil)
		sealed := map[string]domain.Sealed{}
		for _, subject := range []string{"alice", "bob", "carol"} {
			s, err := v.Seal(ctx, subject, purpose, []byte(subject+"'s secret"))
			if err != nil {
				t.Fatal(err)
			}
			sealed[subject] = s
			appendSealed(t, store, "connection-"+subject, "connection.connected", s)
		}

		crash := func(subject string) {
			t.Helper()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			crashing := newVault(t, db, crashAfterAppend{Store: store, cancel: cancel}, master, nil, nil)
			if err := crashing.Shred(cctx, subject, eventstore.Metadata{Actor: "admin"}); err == nil {
				t.Fatalf("the simulated crash did not interrupt Shred(%s)", subject)
			}
			if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, subject); n != 1 {
				t.Fatalf("after the crash %s has %d data keys; the test wants the delete not to have happened", subject, n)
			}
		}
		crash("alice")

		restarted := newVault(t, db, store, master, nil, nil)
		if err := restarted.ReconcileShreds(ctx); err != nil {
			t.Fatalf("ReconcileShreds: %v", err)
		}
		if _, err := restarted.Open(ctx, sealed["alice"], purpose); !errors.Is(err, vault.ErrShredded) {
			t.Fatalf("alice after reconcile: %v, want ErrShredded", err)
		}
		if _, err := restarted.Seal(ctx, "alice", purpose, []byte("x")); !errors.Is(err, vault.ErrShredded) {
			t.Fatalf("Seal for alice after reconcile: %v, want ErrShredded", err)
		}
		for _, subject := range []string{"bob", "carol"} {
			if _, err := restarted.Open(ctx, sealed[subject], purpose); err != nil {
				t.Fatalf("%s after reconcile: %v", subject, err)
			}
		}

		// A later crash is healed by a later run, which starts from its checkpoint and still sees it.
		if err := restarted.ReconcileShreds(ctx); err != nil {
			t.Fatal(err)
		}
		crash("bob")
		if err := newVault(t, db, store, master, nil, nil).ReconcileShreds(ctx); err != nil {
			t.Fatal(err)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject IN ($1, $2)`, "alice", "bob"); n != 0 {
			t.Fatalf("%d data keys of shredded subjects remain", n)
		}
		if _, err := restarted.Open(ctx, sealed["carol"], purpose); err != nil {
			t.Fatalf("carol: %v", err)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_shred_checkpoint WHERE commit_pos > 0`); n != 1 {
			t.Fatalf("no shred checkpoint recorded")
		}
	})
}

// TestShredRacesFirstSeal seals for a new subject from many goroutines while it is being shredded:
// whatever the interleaving, no data key survives and every blob that was sealed fails to open.
func TestShredRacesFirstSeal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		master := mustKey(t)
		for round := range 5 {
			subject := uuid.NewString()
			sealer := newVault(t, db, store, master, nil, nil)
			shredder := newVault(t, db, store, master, nil, nil)
			const n = 8
			sealed := make([]domain.Sealed, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sealed[i], errs[i] = sealer.Seal(ctx, subject, purpose, []byte("x"))
				}()
			}
			wg.Add(1)
			var shredErr error
			go func() {
				defer wg.Done()
				shredErr = shredder.Shred(ctx, subject, eventstore.Metadata{})
			}()
			wg.Wait()
			if shredErr != nil {
				t.Fatalf("round %d: Shred: %v", round, shredErr)
			}
			if c := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, subject); c != 0 {
				t.Fatalf("round %d: %d data keys survived the shred", round, c)
			}
			sealer.Forget(subject)
			for i := range n {
				if errs[i] != nil {
					if !errors.Is(errs[i], vault.ErrShredded) {
						t.Fatalf("round %d: seal %d: %v", round, i, errs[i])
					}
					continue
				}
				if _, err := sealer.Open(ctx, sealed[i], purpose); !errors.Is(err, vault.ErrShredded) {
					t.Fatalf("round %d: blob %d after shred: %v", round, i, err)
				}
			}
		}
	})
}

// TestFirstSealWaitsForAShredInProgress holds another replica's shred transaction open (subject
// marked, keys deleted, not yet committed) while a first Seal for that subject starts: the Seal must
// wait on the subject's row and then refuse, and no data key may appear after the shred.
func TestFirstSealWaitsForAShredInProgress(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		v := newVault(t, db, store, mustKey(t), nil, nil)
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck
		if _, err := tx.ExecContext(ctx, `INSERT INTO vault_subjects (subject, shredded_at) VALUES ($1, $2)`, "dora", time.Now().UTC()); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM vault_data_keys WHERE subject = $1`, "dora"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := v.Seal(ctx, "dora", purpose, []byte("x"))
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("Seal finished (%v) while the shred transaction held the subject", err)
		case <-time.After(300 * time.Millisecond): // Seal is waiting (or has not started: then it sees the commit)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, vault.ErrShredded) {
			t.Fatalf("Seal after the shred committed: %v, want ErrShredded", err)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, "dora"); n != 0 {
			t.Fatalf("%d data keys outlived the shred", n)
		}
	})
}
