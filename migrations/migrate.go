package migrations

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// Dialect names a SQL dialect with its own migration folder.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Migration is one embedded schema change.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string
}

// List returns the dialect's migrations in order.
func List(d Dialect) ([]Migration, error) {
	entries, err := fs.ReadDir(files, string(d))
	if err != nil {
		return nil, fmt.Errorf("migrations: unknown dialect %q", d)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || len(num) != 4 {
			return nil, fmt.Errorf("migrations: %s/%s is not named NNNN_name.sql", d, name)
		}
		if other, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations: %s/%s and %s share version %d", d, name, other, v)
		}
		seen[v] = name
		body, err := files.ReadFile(string(d) + "/" + name)
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(body)
		out = append(out, Migration{Version: v, Name: rest, SQL: string(body), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Apply runs every migration of the dialect not yet recorded in db, in order, each in its own
// transaction together with its record. It returns how many it applied. On PostgreSQL an advisory lock
// keeps two replicas starting at once from racing.
func Apply(ctx context.Context, db *sql.DB, d Dialect, log *slog.Logger) (int, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	all, err := List(d)
	if err != nil {
		return 0, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("migrations: connect: %w", err)
	}
	defer conn.Close()
	if d == Postgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7283911)`); err != nil {
			return 0, fmt.Errorf("migrations: lock: %w", err)
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(7283911)`) //nolint:errcheck
	}
	// Create the bookkeeping table only when it is missing: even CREATE TABLE IF NOT EXISTS needs the
	// right to create in the schema, which the server's least-privilege role (CreateServerRole) lacks.
	exists := `SELECT to_regclass('schema_migrations') IS NOT NULL`
	if d == SQLite {
		exists = `SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations')`
	}
	var haveTable bool
	if err := conn.QueryRowContext(ctx, exists).Scan(&haveTable); err != nil {
		return 0, fmt.Errorf("migrations: look for schema_migrations: %w", err)
	}
	if !haveTable {
		if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY,
			name TEXT NOT NULL,
			checksum TEXT NOT NULL,
			applied_at TEXT NOT NULL)`); err != nil {
			return 0, fmt.Errorf("migrations: create schema_migrations: %w", err)
		}
	}
	applied := map[int]string{}
	rows, err := conn.QueryContext(ctx, `SELECT version, checksum FROM schema_migrations`)
	if err != nil {
		return 0, fmt.Errorf("migrations: read schema_migrations: %w", err)
	}
	for rows.Next() {
		var v int
		var sum string
		if err := rows.Scan(&v, &sum); err != nil {
			rows.Close()
			return 0, err
		}
		applied[v] = sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	n := 0
	for _, m := range all {
		if sum, ok := applied[m.Version]; ok {
			if sum != m.Checksum {
				return n, fmt.Errorf("migrations: %04d_%s was changed after it was applied (forward-only: add a new migration instead)", m.Version, m.Name)
			}
			continue
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return n, fmt.Errorf("migrations: %04d_%s: begin: %w", m.Version, m.Name, err)
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			tx.Rollback() //nolint:errcheck
			return n, fmt.Errorf("migrations: %04d_%s: %w", m.Version, m.Name, err)
		}
		ins := `INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)`
		if _, err := tx.ExecContext(ctx, ins, m.Version, m.Name, m.Checksum, time.Now().UTC().Format(time.RFC3339Nano)); err != nil {
			tx.Rollback() //nolint:errcheck
			return n, fmt.Errorf("migrations: record %04d_%s: %w", m.Version, m.Name, err)
		}
		if err := tx.Commit(); err != nil {
			return n, fmt.Errorf("migrations: %04d_%s: commit: %w", m.Version, m.Name, err)
		}
		log.Info("migration applied", "dialect", d, "version", m.Version, "name", m.Name)
		n++
	}
	return n, nil
}
