package vault_test

import (
	"context"
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
)

// backend is one database the vault's key table can live in, with the event log beside it.
type backend struct {
	name string
	open func(t testing.TB) (*sql.DB, eventstore.Store)
}

func backends() []backend {
	return []backend{
		{name: "sqlite", open: openSQLite},
		{name: "postgres", open: openPostgres},
	}
}

// forEachBackend runs fn against a fresh, migrated key database of every dialect and a real event log.
// PostgreSQL is skipped when WORKBENCH_TEST_POSTGRES_URL is unset.
func forEachBackend(t *testing.T, fn func(t *testing.T, db *sql.DB, store eventstore.Store)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			db, store := b.open(t)
			fn(t, db, store)
		})
	}
}

// openSQLite opens one SQLite file, as the embedded default runs: the key tables and the event log
// (eventstore/sqlite) share the database.
func openSQLite(t testing.TB) (*sql.DB, eventstore.Store) {
	t.Helper()
	db := openSQLiteDB(t)
	return db, newSQLiteStore(t, db)
}

// openPostgres keeps the key tables in a fresh PostgreSQL database; the event log is a SQLite store
// in its own file (the vault needs only the eventstore.Store contract).
func openPostgres(t testing.TB) (*sql.DB, eventstore.Store) {
	t.Helper()
	url := testenv.PostgresURL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(context.Background(), db, migrations.Postgres, nil); err != nil {
		t.Fatalf("migrate postgres: %v", err)
	}
	return db, newSQLiteStore(t, openSQLiteDB(t))
}

func openSQLiteDB(t testing.TB) *sql.DB { return testenv.MigratedSQLite(t) }

func newSQLiteStore(t testing.TB, db *sql.DB) eventstore.Store {
	t.Helper()
	s, err := sqlite.New(db, nil)
	if err != nil {
		t.Fatalf("sqlite event store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustKey(t testing.TB) vault.MasterKey {
	t.Helper()
	k, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newVault(t testing.TB, db *sql.DB, store eventstore.Store, current vault.MasterKey, previous []vault.MasterKey, opts *vault.Options) *vault.Vault {
	t.Helper()
	v, err := vault.New(db, store, current, previous, opts)
	if err != nil {
		t.Fatalf("vault.New: %v", err)
	}
	return v
}

func countRows(t testing.TB, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
