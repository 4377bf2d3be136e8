package testenv

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
)

// Backend is the database a Node runs on.
type Backend int

const (
	// SQLite is a fresh file in the test's temporary directory.
	SQLite Backend = iota
	// Postgres is a fresh database of its own on the server PostgresEnvVar names; a test opening
	// one is skipped when the variable is unset.
	Postgres
)

// String names the backend as subtests do ("sqlite", "postgres").
func (b Backend) String() string {
	switch b {
	case SQLite:
		return "sqlite"
	case Postgres:
		return "postgres"
	}
	return fmt.Sprintf("Backend(%d)", int(b))
}

// Backends lists every backend, for a test that runs once on each.
var Backends = []Backend{SQLite, Postgres}

// Node is the storage of one Workbench node as a test sees it: a migrated database, the event store
// over it, a vault under a new master key and a clock frozen at a fixed instant. What runs on top (a
// projection runner, a use case, a handler) belongs to the layer that owns it and is built by that
// layer's tests from these parts.
type Node struct {
	Backend Backend
	// Dialect is the migrations dialect of DB, as projections.NewRunner and migrations.Apply take it.
	Dialect migrations.Dialect
	DB      *sql.DB
	Store   eventstore.Store
	Vault   *vault.Vault
	Clock   *Clock
	// URL is the PostgreSQL database's connection string; empty on SQLite.
	URL string
}

// Open opens a Node on backend; everything it opened is closed when the test ends. Its clock stands at
// 2026-01-01 09:00 UTC until the test moves it; nothing in the node reads it unless the test passes
// Clock.Now on.
func Open(t testing.TB, backend Backend) *Node {
	t.Helper()
	n := &Node{Backend: backend, Clock: NewClock(time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))}
	switch backend {
	case SQLite:
		s := OpenSQLite(t)
		n.Dialect, n.DB, n.Store = migrations.SQLite, s.DB, s.Store
	case Postgres:
		n.Dialect = migrations.Postgres
		n.URL = PostgresURL(t)
		n.DB, n.Store = openPostgres(t, n.URL)
	default:
		t.Fatalf("testenv: unknown backend %v", backend)
	}
	n.Vault = Vault(t, n.DB, n.Store)
	return n
}

// Settle waits until the node's log shows every committed event (see Settle).
func (n *Node) Settle(tb testing.TB) {
	tb.Helper()
	Settle(tb, n.DB, n.Store)
}

// openPostgres applies every migration to the database at url and opens a database/sql handle and the
// event store on it.
func openPostgres(t testing.TB, url string) (*sql.DB, eventstore.Store) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatalf("testenv: open %s: %v", url, err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
		t.Fatalf("testenv: migrate PostgreSQL: %v", err)
	}
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("testenv: pool: %v", err)
	}
	t.Cleanup(pool.Close)
	store, err := postgres.New(context.Background(), pool, nil)
	if err != nil {
		t.Fatalf("testenv: PostgreSQL event store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return db, store
}
