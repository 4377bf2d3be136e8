package identityrm_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
)

type env struct {
	ctx    context.Context
	db     *sql.DB
	store  eventstore.Store
	runner *projections.Runner
	svc    *accounts.Service
	reader identityrm.Reader
}

func setup(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	db := testenv.MigratedSQLite(t)
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{identityrm.New().WithOpener(v)}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })
	return &env{ctx: ctx, db: db, store: store, runner: runner, svc: &accounts.Service{Store: store, Vault: v}, reader: identityrm.Reader{DB: db}}
}

var md = eventstore.Metadata{Actor: "test"}

func TestKeyLifecycleThroughTheReadModel(t *testing.T) {
	e := setup(t)
	u, created, pos, err := e.svc.EnsureUser(e.ctx, " Ada@Example.com ", "Ada", md)
	if err != nil || !created {
		t.Fatalf("EnsureUser: %v created=%v", err, created)
	}
	again, created, _, err := e.svc.EnsureUser(e.ctx, "ada@example.com", "", md)
	if err != nil || created || again.ID != u.ID {
		t.Fatalf("second EnsureUser: %+v created=%v err=%v", again, created, err)
	}
	if err := e.runner.WaitFor(e.ctx, pos); err != nil {
		t.Fatal(err)
	}
	got, err := e.reader.UserByEmail(e.ctx, "ada@example.com")
	if err != nil || got.ID != u.ID || got.DisplayName != "Ada" {
		t.Fatalf("UserByEmail: %+v %v", got, err)
	}

	k1, pos, err := e.svc.MintKey(e.ctx, u.ID, md)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.svc.MintKey(e.ctx, u.ID, md); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("second mint: %v, want conflict", err)
	}
	if err := e.runner.WaitFor(e.ctx, pos); err != nil {
		t.Fatal(err)
	}
	owner, keyID, err := e.reader.UserByKeyHash(e.ctx, identitydom.HashAPIKey(k1.Secret))
	if err != nil || owner.ID != u.ID || keyID != k1.ID {
		t.Fatalf("by hash: %+v %s %v", owner, keyID, err)
	}
	revealed, err := e.svc.RevealKey(e.ctx, u.ID)
	if err != nil || revealed.Secret != k1.Secret {
		t.Fatalf("reveal: %v", err)
	}

	k2, pos, err := e.svc.RotateKey(e.ctx, u.ID, md)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.WaitFor(e.ctx, pos); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.reader.UserByKeyHash(e.ctx, identitydom.HashAPIKey(k1.Secret)); !errors.Is(err, identityrm.ErrNotFound) {
		t.Fatalf("old key after rotation: %v", err)
	}
	if owner, _, err := e.reader.UserByKeyHash(e.ctx, identitydom.HashAPIKey(k2.Secret)); err != nil || owner.ID != u.ID {
		t.Fatalf("new key: %v", err)
	}
	if live, err := e.reader.LiveKey(e.ctx, u.ID); err != nil || live.ID != k2.ID || !strings.HasPrefix(live.Prefix, "wb_") {
		t.Fatalf("live key: %+v %v", live, err)
	}

	pos, err = e.svc.RevokeKey(e.ctx, u.ID, md)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.WaitFor(e.ctx, pos); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.reader.UserByKeyHash(e.ctx, identitydom.HashAPIKey(k2.Secret)); !errors.Is(err, identityrm.ErrNotFound) {
		t.Fatalf("revoked key: %v", err)
	}
	if _, err := e.svc.RevokeKey(e.ctx, u.ID, md); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("revoke without a live key: %v", err)
	}
	if _, err := e.svc.RevealKey(e.ctx, u.ID); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("reveal without a live key: %v", err)
	}
}

// A claim whose user was never created (a crash between the two appends) is taken over by the next
// create for the same address, under the claimed id.
func TestEnsureUserFinishesAnInterruptedCreate(t *testing.T) {
	e := setup(t)
	claimed := uuid.New()
	agg := eventstore.Aggregate[identitydom.EmailClaim, identitydom.ClaimEmail, domain.Event]{
		Initial: identitydom.InitialEmailClaim, Evolve: identitydom.EvolveEmailClaim, Decide: identitydom.DecideEmailClaim,
		Codec: eventstore.NewJSONCodec(identitydom.Events()...),
	}
	if _, err := eventstore.Execute(e.ctx, e.store, identitydom.EmailStreamName("bob@example.com"), agg,
		identitydom.ClaimEmail{Email: "bob@example.com", UserID: claimed, At: time.Now()}, md); err != nil {
		t.Fatal(err)
	}
	u, created, _, err := e.svc.EnsureUser(e.ctx, "bob@example.com", "", md)
	if err != nil || !created || u.ID != claimed {
		t.Fatalf("got %+v created=%v err=%v, want the claimed id %s", u, created, err, claimed)
	}
}

// Concurrent creates of one address end with one user.
func TestEnsureUserConcurrent(t *testing.T) {
	e := setup(t)
	ids := make(chan uuid.UUID, 20)
	errs := make(chan error, 20)
	for range 20 {
		go func() {
			u, _, _, err := e.svc.EnsureUser(e.ctx, "carol@example.com", "", md)
			ids <- u.ID
			errs <- err
		}()
	}
	var first uuid.UUID
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		id := <-ids
		if first == uuid.Nil {
			first = id
		}
		if id != first {
			t.Fatalf("two users for one address: %s and %s", first, id)
		}
	}
}

func dump(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT user_id, email, display_name, created_at FROM users ORDER BY user_id`,
		`SELECT key_id, user_id, hash, prefix, COALESCE(sealed, ''), minted_at, COALESCE(revoked_at, '') FROM api_keys ORDER BY key_id`,
	} {
		rows, err := db.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, vals...)
		}
		rows.Close()
	}
	return b.String()
}

func TestRebuildMatchesIncremental(t *testing.T) {
	e := setup(t)
	var last eventstore.Position
	for i := range 10 {
		u, _, _, err := e.svc.EnsureUser(e.ctx, fmt.Sprintf("user%d@example.com", i), "", md)
		if err != nil {
			t.Fatal(err)
		}
		if _, last, err = e.svc.MintKey(e.ctx, u.ID, md); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if _, last, err = e.svc.RotateKey(e.ctx, u.ID, md); err != nil {
				t.Fatal(err)
			}
		}
		if i%3 == 0 {
			if last, err = e.svc.RevokeKey(e.ctx, u.ID, md); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := e.runner.WaitFor(e.ctx, last); err != nil {
		t.Fatal(err)
	}
	before := dump(t, e.db)
	if strings.Count(before, "\n") != 10+15 {
		t.Fatalf("unexpected read model:\n%s", before)
	}
	if err := e.runner.Rebuild(e.ctx, identityrm.Name); err != nil {
		t.Fatal(err)
	}
	if err := e.runner.WaitFor(e.ctx, last); err != nil {
		t.Fatal(err)
	}
	if after := dump(t, e.db); after != before {
		t.Fatalf("rebuild differs\n--- incremental\n%s--- rebuilt\n%s", before, after)
	}
}
