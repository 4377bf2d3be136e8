// Package jotstest builds a complete jots service for tests: a real SQLite database (event store and
// read model, migrated), the projection runner with the jots projection running, and a filesystem blob
// store in a temporary directory.
package jotstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/jotsrm"
)

// Env is a running jots service.
type Env struct {
	Ctx     context.Context
	DB      *sql.DB
	Store   eventstore.Store
	Runner  *projections.Runner
	Reader  jotsrm.Reader
	BlobDir string
	Service *jots.Service
}

// New starts an Env. opts may set PublicURL, JotsOrigin, Limits and Now; the rest is filled in.
func New(t testing.TB, opts jots.Options) *Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	db, err := sqlite.OpenDB(ctx, filepath.Join(dir, "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{jotsrm.New()}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done; store.Close() })

	e := &Env{Ctx: ctx, DB: db, Store: store, Runner: runner, Reader: jotsrm.Reader{DB: db}, BlobDir: filepath.Join(dir, "blobs")}
	opts.Store, opts.Reader, opts.Waiter = store, e.Reader, runner
	if opts.Blobs == nil {
		opts.Blobs = jots.FSBlobs{Dir: e.BlobDir}
	}
	if opts.PublicURL == "" {
		opts.PublicURL = "http://workbench.test"
	}
	if opts.BcryptCost == 0 {
		opts.BcryptCost = bcrypt.MinCost
	}
	if e.Service, err = jots.New(opts); err != nil {
		t.Fatal(err)
	}
	return e
}

// File is one file of a test archive.
type File struct {
	Path, Body string
}

// Archive builds a gzip-compressed tar archive of regular files.
func Archive(t testing.TB, files ...File) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Name: f.Path, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.Body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.Body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
