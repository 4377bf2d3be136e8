package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/eventstore/sqlite"
)

func TestOpenDBSettings(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "nested", "dir", "workbench.db")
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	defer db.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	// Hold several connections at once so that each setting is checked on more than the first.
	for c := 0; c < 3; c++ {
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatalf("Conn: %v", err)
		}
		defer conn.Close()
		for _, tc := range []struct {
			pragma string
			want   string
		}{
			{"journal_mode", "wal"},
			{"synchronous", "2"}, // FULL
			{"foreign_keys", "1"},
			{"busy_timeout", "10000"},
		} {
			var got string
			if err := conn.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
				t.Fatalf("connection %d: PRAGMA %s: %v", c, tc.pragma, err)
			}
			if !strings.EqualFold(got, tc.want) {
				t.Errorf("connection %d: PRAGMA %s = %q, want %q", c, tc.pragma, got, tc.want)
			}
		}
	}
}

func TestOpenDBRefusesBadPaths(t *testing.T) {
	for _, tc := range []struct {
		name, path string
	}{
		{"empty", ""},
		{"in memory", ":memory:"},
		{"uri", "file:x.db?mode=memory"},
		{"query in a plain path", filepath.Join(t.TempDir(), "x.db?_synchronous=OFF")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := sqlite.OpenDB(context.Background(), tc.path)
			if err == nil {
				db.Close()
				t.Fatalf("OpenDB(%q) succeeded; want an error", tc.path)
			}
		})
	}
}

func TestNewWithoutMigrations(t *testing.T) {
	db, err := sqlite.OpenDB(context.Background(), filepath.Join(t.TempDir(), "empty.db"))
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	defer db.Close()
	if _, err := sqlite.New(db, nil); err == nil || !strings.Contains(err.Error(), "migrations") {
		t.Errorf("New on an unmigrated database = %v; want an error that says to apply the migrations", err)
	}
}

// modernc.org/sqlite binds PostgreSQL-style $N placeholders by number, so SQL can be shared between
// the two dialects. These cases pin that down.
func TestDollarPlaceholders(t *testing.T) {
	db, err := sqlite.OpenDB(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	defer db.Close()
	for _, tc := range []struct {
		name  string
		query string
		args  []any
		want  string
	}{
		{"in order", `SELECT $1 || '-' || $2`, []any{"a", "b"}, "a-b"},
		{"reversed", `SELECT $2 || '-' || $1`, []any{"a", "b"}, "b-a"},
		{"repeated", `SELECT $1 || '-' || $2 || '-' || $1`, []any{"a", "b"}, "a-b-a"},
		{"ten and more", `SELECT $10 || $1`, []any{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, "101"},
		{"question marks still work", `SELECT ? || ?`, []any{"x", "y"}, "xy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			if err := db.QueryRow(tc.query, tc.args...).Scan(&got); err != nil {
				t.Fatalf("%s: %v", tc.query, err)
			}
			if got != tc.want {
				t.Errorf("%s = %q, want %q", tc.query, got, tc.want)
			}
		})
	}
}
