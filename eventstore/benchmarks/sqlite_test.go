package benchmarks

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
)

// sqliteBackend runs on a fresh file opened with sqlite.OpenDB (WAL, synchronous=FULL). The raw
// baseline writes raw_events, created from the events table's own DDL, through the same *sql.DB, so
// the pragmas and the file are the same.
func sqliteBackend() backend {
	return backend{name: "sqlite", open: func(b *testing.B) opened {
		ctx := context.Background()
		db, err := sqlite.OpenDB(ctx, filepath.Join(b.TempDir(), "events.db"))
		if err != nil {
			b.Fatalf("open: %v", err)
		}
		b.Cleanup(func() { db.Close() })
		if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
			b.Fatalf("migrate: %v", err)
		}
		var ddl string
		if err := db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'`).Scan(&ddl); err != nil {
			b.Fatalf("read events DDL: %v", err)
		}
		rawDDL := strings.Replace(ddl, "CREATE TABLE events", "CREATE TABLE raw_events", 1)
		if rawDDL == ddl {
			b.Fatalf("events DDL %q does not start with CREATE TABLE events", ddl)
		}
		if _, err := db.ExecContext(ctx, rawDDL); err != nil {
			b.Fatalf("create raw_events: %v", err)
		}
		batches := new(atomic.Int64)
		store, err := sqlite.New(db, &sqlite.Options{OnCommit: func([]eventstore.Envelope) { batches.Add(1) }})
		if err != nil {
			b.Fatalf("store: %v", err)
		}
		b.Cleanup(func() { store.Close() })
		return opened{store: store, raw: sqliteRaw{db: db}, batches: batches}
	}}
}

type sqliteRaw struct{ db *sql.DB }

// The position column is left out: SQLite gives an INTEGER PRIMARY KEY the next rowid.
const sqliteRawInsert = `INSERT INTO raw_events (id, stream, version, type, schema_version, data, metadata)
VALUES (?, ?, ?, ?, ?, ?, ?)`

func (s sqliteRaw) insertOne(ctx context.Context, r rawRow) error {
	_, err := s.db.ExecContext(ctx, sqliteRawInsert, r.id.String(), r.stream, r.version, r.typ, r.schema, string(r.data), string(r.metadata))
	return err
}

func (s sqliteRaw) insertBatch(ctx context.Context, rs []rawRow) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	stmt, err := tx.PrepareContext(ctx, sqliteRawInsert)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rs {
		if _, err := stmt.ExecContext(ctx, r.id.String(), r.stream, r.version, r.typ, r.schema, string(r.data), string(r.metadata)); err != nil {
			return err
		}
	}
	return tx.Commit()
}
