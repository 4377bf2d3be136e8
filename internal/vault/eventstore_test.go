package vault_test

import (
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
)

// newEventStore returns the event log the vault appends shred events to in tests.
//
// TODO(vault): switch to the SQLite store (eventstore/sqlite: sqlite.OpenDB, sqlite.New) once it lands;
// until then the in-memory store, which passes the same storetest suite.
func newEventStore(t *testing.T) eventstore.Store {
	t.Helper()
	s := memory.New(nil)
	t.Cleanup(func() { s.Close() })
	return s
}
