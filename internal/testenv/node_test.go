package testenv

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// A node on each backend is a working whole: its database is migrated (the events table exists), an
// append is read back through the log once settled, its vault seals and opens, and two nodes of one
// test do not share a database.
func TestOpenEachBackend(t *testing.T) {
	for _, backend := range Backends {
		t.Run(backend.String(), func(t *testing.T) {
			ctx := context.Background()
			n := Open(t, backend)
			if n.Backend != backend || n.DB == nil || n.Store == nil || n.Vault == nil || n.Clock == nil {
				t.Fatalf("incomplete node: %+v", n)
			}
			if (n.URL != "") != (backend == Postgres) {
				t.Fatalf("URL %q on %v", n.URL, backend)
			}
			if _, err := n.Store.Append(ctx, "s-1", eventstore.NoStream, eventstore.EventData{ID: uuid.New(), Type: "tested", SchemaVersion: 1, Data: []byte(`{}`)}); err != nil {
				t.Fatalf("append: %v", err)
			}
			n.Settle(t)
			envs, err := n.Store.ReadAll(ctx, eventstore.Start, 10)
			if err != nil || len(envs) != 1 || envs[0].Stream != "s-1" {
				t.Fatalf("ReadAll = %v, %v; want the one event of s-1", envs, err)
			}
			sealed, err := n.Vault.Seal(ctx, "subject-1", "test", []byte("secret"))
			if err != nil {
				t.Fatalf("seal: %v", err)
			}
			if got, err := n.Vault.Open(ctx, sealed, "test"); err != nil || string(got) != "secret" {
				t.Fatalf("open = %q, %v; want secret", got, err)
			}

			other := Open(t, backend)
			var count int
			if err := other.DB.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&count); err != nil {
				t.Fatalf("count the second node's events: %v", err)
			}
			if count != 0 {
				t.Fatalf("a second node sees %d events of the first; want its own empty database", count)
			}
		})
	}
}
