package migrations_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// dialectDifferences are the places where the two dialects' schemas differ on purpose, keyed by
// "table.column" (or "table" for a whole table) and giving each side's broad type ("-" for absent).
// Anything else must match: the same tables, the same columns, the same broad types. The test also fails
// when a listed difference has gone, so the list stays true.
var dialectDifferences = map[string]struct{ sqlite, postgres, why string }{
	// The event log: PostgreSQL orders readers by transaction id and has native uuid and jsonb; SQLite has
	// one writer, so its position alone orders the log, and it keeps ids and metadata as text.
	"events.xid":      {"-", "xid8", "read order by transaction id (pg_current_xact_id), PostgreSQL only"},
	"events.id":       {"text", "uuid", "SQLite has no uuid type"},
	"events.metadata": {"text", "json", "SQLite has no jsonb; metadata is JSON text"},
	"events.data":     {"text", "bytes", "event data is raw JSON bytes (bytea); SQLite's TEXT column holds the same bytes"},
	// Jot bodies: on PostgreSQL in the database, so every replica serves the same jots; the embedded
	// SQLite node keeps them as files in its data directory (internal/jots, FSBlobs).
	"jot_blobs": {"-", "table", "jot bodies live in the database only on PostgreSQL"},
	// Times and ids PostgreSQL types natively where SQLite keeps text.
	"projection_checkpoints.error_at":       {"text", "timestamp", "SQLite has no timestamp type"},
	"projection_checkpoints.updated_at":     {"text", "timestamp", "SQLite has no timestamp type"},
	"projection_checkpoints.error_event_id": {"text", "uuid", "SQLite has no uuid type"},
	"vault_data_keys.created_at":            {"text", "timestamp", "SQLite has no timestamp type"},
	"vault_subjects.shredded_at":            {"text", "timestamp", "SQLite has no timestamp type"},
}

// TestDialectsHaveTheSameSchema applies every migration to a fresh SQLite file and a fresh PostgreSQL
// database and compares the resulting tables and columns (names and broad types), so that a migration
// written for one dialect and forgotten (or written differently) for the other is caught.
func TestDialectsHaveTheSameSchema(t *testing.T) {
	ctx := context.Background()

	lite, err := sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, err := migrations.Apply(ctx, lite, migrations.SQLite, nil); err != nil {
		t.Fatal(err)
	}
	sqliteCols := columns(t, lite, `SELECT m.name, p.name, p.type FROM sqlite_master m JOIN pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\_%' ESCAPE '\'`, sqliteBroadType)

	pg, err := sql.Open("pgx", testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if _, err := migrations.Apply(ctx, pg, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	pgCols := columns(t, pg, `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_schema = current_schema()`, postgresBroadType)

	if len(sqliteCols) == 0 || len(pgCols) == 0 {
		t.Fatalf("no columns read (SQLite %d, PostgreSQL %d)", len(sqliteCols), len(pgCols))
	}

	// Fold whole tables present on one side only into one "table" entry.
	diffs := map[string][2]string{}
	tables := func(cols map[string]string) map[string]bool {
		out := map[string]bool{}
		for k := range cols {
			table, _, _ := strings.Cut(k, ".")
			out[table] = true
		}
		return out
	}
	liteTables, pgTables := tables(sqliteCols), tables(pgCols)
	for table := range liteTables {
		if !pgTables[table] {
			diffs[table] = [2]string{"table", "-"}
		}
	}
	for table := range pgTables {
		if !liteTables[table] {
			diffs[table] = [2]string{"-", "table"}
		}
	}
	for _, side := range []map[string]string{sqliteCols, pgCols} {
		for key := range side {
			table, _, _ := strings.Cut(key, ".")
			if !liteTables[table] || !pgTables[table] {
				continue
			}
			l, p := or(sqliteCols[key], "-"), or(pgCols[key], "-")
			if l != p {
				diffs[key] = [2]string{l, p}
			}
		}
	}

	var report []string
	for key, d := range diffs {
		want, listed := dialectDifferences[key]
		switch {
		case !listed:
			report = append(report, fmt.Sprintf("%s: SQLite %s, PostgreSQL %s (not a listed difference)", key, d[0], d[1]))
		case want.sqlite != d[0] || want.postgres != d[1]:
			report = append(report, fmt.Sprintf("%s: SQLite %s, PostgreSQL %s (listed as SQLite %s, PostgreSQL %s)", key, d[0], d[1], want.sqlite, want.postgres))
		}
	}
	for key := range dialectDifferences {
		if _, ok := diffs[key]; !ok {
			report = append(report, fmt.Sprintf("%s: listed as a difference, but both dialects now agree; remove it from dialectDifferences", key))
		}
	}
	sort.Strings(report)
	for _, line := range report {
		t.Error(line)
	}
}

// columns reads "table.column" -> broad type with query, which returns table, column and declared type.
func columns(t *testing.T, db *sql.DB, query string, broad func(string) string) map[string]string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var table, column, typ string
		if err := rows.Scan(&table, &column, &typ); err != nil {
			t.Fatal(err)
		}
		out[table+"."+column] = broad(typ)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sqliteBroadType follows SQLite's type affinity rules (https://sqlite.org/datatype3.html, 3.1).
func sqliteBroadType(declared string) string {
	d := strings.ToUpper(declared)
	switch {
	case strings.Contains(d, "INT"):
		return "integer"
	case strings.Contains(d, "CHAR"), strings.Contains(d, "CLOB"), strings.Contains(d, "TEXT"):
		return "text"
	case d == "", strings.Contains(d, "BLOB"):
		return "bytes"
	case strings.Contains(d, "REAL"), strings.Contains(d, "FLOA"), strings.Contains(d, "DOUB"):
		return "real"
	}
	return "numeric " + strings.ToLower(declared)
}

// postgresBroadType groups information_schema.columns.data_type into the same broad types.
func postgresBroadType(dataType string) string {
	switch dataType {
	case "smallint", "integer", "bigint":
		return "integer"
	case "text", "character varying", "character":
		return "text"
	case "bytea":
		return "bytes"
	case "real", "double precision":
		return "real"
	case "json", "jsonb":
		return "json"
	case "timestamp with time zone", "timestamp without time zone":
		return "timestamp"
	}
	return dataType // uuid, boolean, xid8, numeric...
}

func or(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
