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
	return SQLiteDB{DB: db, Store: store}
}
