package crashtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/migrations"
)

// sqliteBackend: a database file in the test's temporary directory, opened by the child and then by
// the parent. Positions are one gap-free sequence.
func sqliteBackend() backend {
	return backend{
		name:    "sqlite",
		gapFree: true,
		prepare: func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "crash.db")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			db, err := sqlite.OpenDB(ctx, path)
			if err != nil {
				t.Fatalf("open %s: %v", path, err)
			}
			defer db.Close()
			if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
				t.Fatalf("migrate: %v", err)
			}
			return path
		},
		open: func(ctx context.Context, path string) (eventstore.Store, func(), error) {
			db, err := sqlite.OpenDB(ctx, path)
			if err != nil {
				return nil, nil, err
			}
			s, err := sqlite.New(db, nil)
			if err != nil {
				db.Close()
				return nil, nil, err
			}
			return s, func() { db.Close() }, nil
		},
	}
}
