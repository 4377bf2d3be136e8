package jotsrm_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"testing"
	"time"

	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/jot"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections/jotsrm"
)

// The projection and the counting queries on PostgreSQL: a live jot, a claim, an expired claim.
func TestReaderOnPostgres(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	events := []domain.Event{
		jot.UploadAuthorized{Name: "live", Creator: user, UploadID: sum("u1"), Settings: jot.Settings{Access: jot.AccessPublic}, AuthorizedAt: t0, ExpiresAt: t0.Add(time.Minute)},
		jot.Deployed{Name: "live", Creator: user, UploadID: sum("u1"), Generation: 1, Settings: jot.Settings{Access: jot.AccessPublic}, DeployedAt: t0,
			Files: []jot.File{{Path: "a", Size: 3, SHA256: sum("a"), ContentType: "text/plain"}, {Path: "b", Size: 4, SHA256: sum("b"), ContentType: "text/plain"}}},
		jot.UploadAuthorized{Name: "old", Creator: user, UploadID: sum("u2"), AuthorizedAt: t0, ExpiresAt: t0.Add(time.Minute)},
		jot.UploadAuthorized{Name: "claim", Creator: user, UploadID: sum("u3"), AuthorizedAt: t0.Add(2 * time.Minute), ExpiresAt: t0.Add(3 * time.Minute)},
	}
	p := jotsrm.New()
	codec := eventstore.NewJSONCodec(jot.Events()...)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, ev := range events {
		typ, sv, data, err := codec.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Apply(ctx, tx, eventstore.Envelope{Type: typ, SchemaVersion: sv, Data: data, Version: int64(i + 1)}); err != nil {
			t.Fatalf("apply %s: %v", typ, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r := jotsrm.Reader{DB: db}
	if n, err := r.Held(ctx, user, t0.Add(2*time.Minute)); err != nil || n != 2 {
		t.Errorf("held: %d %v, want live and claim", n, err)
	}
	if n, err := r.Bytes(ctx, user, ""); err != nil || n != 7 {
		t.Errorf("bytes: %d %v", n, err)
	}
	if n, err := r.Bytes(ctx, user, "live"); err != nil || n != 0 {
		t.Errorf("bytes but live: %d %v", n, err)
	}
	var sums []string
	if err := r.LiveSums(ctx, func(s string) { sums = append(sums, s) }); err != nil || len(sums) != 2 {
		t.Errorf("live sums: %v %v", sums, err)
	}
	var claims int
	if err := db.QueryRow(`SELECT COUNT(*) FROM jot_claims`).Scan(&claims); err != nil || claims != 1 {
		t.Errorf("%d claim rows (%v): the expired claims should be gone", claims, err)
	}
}
