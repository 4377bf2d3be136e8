package testenv

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
)

// SQLiteDB is a migrated SQLite database and the event store over it.
type SQLiteDB struct {
	DB    *sql.DB
	Store *sqlite.Store
}

// OpenSQLite opens a fresh SQLite file in the test's temporary directory, applies every migration and
// opens the event store over it; both are closed when the test ends.
func OpenSQLite(t testing.TB) SQLiteDB {
	t.Helper()
	db := MigratedSQLite(t)
	store, err := sqlite.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return SQLiteDB{DB: db, Store: store}
}

// MigratedSQLite opens a fresh SQLite file in the test's temporary directory with every migration
// applied, for a test that puts its own event store (an in-memory log, a store with a write gate)
// beside it. The database is closed when the test ends.
func MigratedSQLite(t testing.TB) *sql.DB {
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
	return db
}
