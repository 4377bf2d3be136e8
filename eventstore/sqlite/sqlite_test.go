package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/eventstore/storetest"
	"github.com/workbench/workbench/migrations"
)

// openDB opens a migrated database file at path, closed when the test ends.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		t.Fatalf("OpenDB: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
		t.Fatalf("migrations.Apply: %v", err)
	}
	return db
}

// openStore opens a Store on the file at path; it is closed before its database when the test ends.
func openStore(t *testing.T, path string, opts *sqlite.Options) *sqlite.Store {
	t.Helper()
	db := openDB(t, path)
	s, err := sqlite.New(db, opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	var (
		mu    sync.Mutex
		paths = map[eventstore.Store]string{}
	)
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) eventstore.Store {
			path := filepath.Join(t.TempDir(), "events.db")
			s := openStore(t, path, nil)
			mu.Lock()
			paths[s] = path
			mu.Unlock()
			return s
		},
		OpenPeer: func(t *testing.T, first eventstore.Store) eventstore.Store {
			mu.Lock()
			path, ok := paths[first]
			mu.Unlock()
			if !ok {
				t.Fatal("OpenPeer: not a store this harness opened")
			}
			// Poll often: the peer learns of the first handle's commits only by polling.
			return openStore(t, path, &sqlite.Options{PollInterval: 20 * time.Millisecond})
		},
	})
}
