// Package dbtest opens what a package test runs on: a fresh SQLite file in the test's temporary
// directory with every migration applied, its event store, and a vault under a new master key. Each is
// closed when the test ends. Settle waits until a store's log shows every committed event, on either
// backend. Only tests import it.
package dbtest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
)

// SQLite is a migrated database and the event store over it.
type SQLite struct {
	DB    *sql.DB
	Store *sqlite.Store
}

// OpenSQLite opens a fresh, migrated SQLite database and its event store.
func OpenSQLite(t testing.TB) SQLite {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "workbench.db"))
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
	t.Cleanup(func() { store.Close() })
	return SQLite{DB: db, Store: store}
}

// Vault returns a vault over db and store under a newly generated master key.
func Vault(t testing.TB, db *sql.DB, store eventstore.Store) *vault.Vault {
	t.Helper()
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Settle waits until store's log shows every event db's events table holds. On
// PostgreSQL a reader sees a committed event only once no transaction below it is still open (the
// gap-free read, DESIGN.md), which may be a moment after its append answered; on SQLite it returns at
// once. It fails the test when the log still falls short after 20 seconds.
func Settle(tb testing.TB, db *sql.DB, store eventstore.Store) {
	tb.Helper()
	ctx := context.Background()
	var committed int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&committed); err != nil {
		tb.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		envs, err := store.ReadAll(ctx, eventstore.Start, committed+1)
		if err != nil {
			tb.Fatal(err)
		}
		if len(envs) >= committed {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the log shows %d of the %d committed events", len(envs), committed)
		}
	}
}
