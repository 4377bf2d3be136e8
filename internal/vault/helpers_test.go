package vault_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testpg"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
)

// backend is one database the vault's key table can live in.
type backend struct {
	name string
	open func(t *testing.T) *sql.DB
}

func backends() []backend {
	return []backend{
		{name: "sqlite", open: openSQLite},
		{name: "postgres", open: openPostgres},
	}
}

// forEachBackend runs fn against a fresh, migrated database of every dialect. PostgreSQL is skipped
// when WORKBENCH_TEST_POSTGRES_URL is unset.
func forEachBackend(t *testing.T, fn func(t *testing.T, db *sql.DB)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			fn(t, b.open(t))
		})
	}
}

func openSQLite(t *testing.T) *sql.DB {
	t.Helper()
	return openSQLiteAt(t, filepath.Join(t.TempDir(), "workbench.db"))
}

func openSQLiteAt(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)")
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(context.Background(), db, migrations.SQLite, nil); err != nil {
		t.Fatalf("migrate sqlite: %v", err)
	}
	return db
}

func openPostgres(t *testing.T) *sql.DB {
	t.Helper()
	url := testpg.New(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(context.Background(), db, migrations.Postgres, nil); err != nil {
		t.Fatalf("migrate postgres: %v", err)
	}
	return db
}

func mustKey(t *testing.T) vault.MasterKey {
	t.Helper()
	k, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newVault(t *testing.T, db *sql.DB, store eventstore.Store, current vault.MasterKey, previous []vault.MasterKey, opts *vault.Options) *vault.Vault {
	t.Helper()
	v, err := vault.New(db, store, current, previous, opts)
	if err != nil {
		t.Fatalf("vault.New: %v", err)
	}
	return v
}

// fakeClock is a clock tests move by hand.
type fakeClock struct{ t time.Time }

func (c *fakeClock) Now() time.Time          { return c.t }
func (c *fakeClock) Advance(d time.Duration) { c.t = c.t.Add(d) }

func countRows(t *testing.T, db *sql.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
