// Package dbtest opens what a package test runs on: a fresh SQLite file in the test's temporary
// directory with every migration applied, its event store, and a vault under a new master key. Each is
// closed when the test ends. Only tests import it.
package dbtest

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

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
