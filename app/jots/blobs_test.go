package jots_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// One suite for every blob store.
func testBlobStore(t *testing.T, b jots.BlobStore) {
	ctx := context.Background()
	body := []byte("<h1>hello</h1>")
	sum := jots.SumOf(body)
	if _, err := b.Get(ctx, sum); !errors.Is(err, jots.ErrBlobNotFound) {
		t.Fatalf("get before put: %v", err)
	}
	for range 2 { // idempotent
		if err := b.Put(ctx, sum, body); err != nil {
			t.Fatal(err)
		}
	}
	got, err := b.Get(ctx, sum)
	if err != nil || string(got) != string(body) {
		t.Fatalf("get: %q %v", got, err)
	}
	empty := jots.SumOf(nil)
	if err := b.Put(ctx, empty, []byte{}); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Get(ctx, empty); err != nil || len(got) != 0 {
		t.Fatalf("empty blob: %q %v", got, err)
	}
	if err := b.Put(ctx, sum, []byte("something else")); err == nil {
		t.Error("a body stored under another body's sum was accepted")
	}
	if _, err := b.Get(ctx, "../../etc/passwd"); err == nil || errors.Is(err, jots.ErrBlobNotFound) {
		t.Errorf("a non-digest key: %v", err)
	}
}

func TestFSBlobs(t *testing.T) {
	testBlobStore(t, jots.FSBlobs{Dir: t.TempDir()})
}

func TestPostgresBlobs(t *testing.T) {
	url := testenv.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := migrations.Apply(context.Background(), db, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	testBlobStore(t, jots.PostgresBlobs{DB: db})
}
