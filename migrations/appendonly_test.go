package migrations_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// TestEventsAppendOnly: once migrated, the event log takes inserts and refuses every statement that
// would change or remove a row, on both dialects, even from the table's owner.
func TestEventsAppendOnly(t *testing.T) {
	ctx := context.Background()
	dbs := map[migrations.Dialect]func(t *testing.T) *sql.DB{
		migrations.SQLite: func(t *testing.T) *sql.DB {
			db, err := sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "wb.db"))
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
		migrations.Postgres: func(t *testing.T) *sql.DB {
			db, err := sql.Open("pgx", testenv.PostgresURL(t))
			if err != nil {
				t.Fatal(err)
			}
			return db
		},
	}
	for dialect, open := range dbs {
		t.Run(string(dialect), func(t *testing.T) {
			db := open(t)
			defer db.Close()
			if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
				t.Fatal(err)
			}
			insert := `INSERT INTO events (position, id, stream, version, type, schema_version, data, metadata)
				VALUES ($2, $1, 's-1', $2, 't', 1, '{}', '{}')`
			if dialect == migrations.Postgres {
				insert = `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
					VALUES ($1::uuid, 's-1', $2, 't', 1, '\x7b7d', '{}')`
			}
			for i, id := range []string{"00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"} {
				if _, err := db.ExecContext(ctx, insert, id, i+1); err != nil {
					t.Fatalf("insert: %v", err)
				}
			}
			refused := []string{
				`UPDATE events SET type = 'forged' WHERE version = 1`,
				`UPDATE events SET data = data`,
				`DELETE FROM events WHERE version = 2`,
				`DELETE FROM events`,
			}
			if dialect == migrations.Postgres {
				refused = append(refused, `TRUNCATE events`, `TRUNCATE events CASCADE`)
			}
			for _, stmt := range refused {
				_, err := db.ExecContext(ctx, stmt)
				if err == nil || !strings.Contains(err.Error(), "append-only") {
					t.Errorf("%s: want a refusal naming the append-only log, got %v", stmt, err)
				}
			}
			var n int
			var forged bool
			if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(CASE WHEN type = 'forged' THEN 1 ELSE 0 END), 0) = 1 FROM events`).Scan(&n, &forged); err != nil {
				t.Fatal(err)
			}
			if n != 2 || forged {
				t.Fatalf("after the refused statements: %d events, forged %v", n, forged)
			}
		})
	}
}
