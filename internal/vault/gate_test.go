package vault_test

import (
	"context"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/vault"
)

// The vault's writes to its key tables hold the write gate it was given: while someone else holds
// the gate, a first seal (which creates the subject's data key) waits, and goes through once it opens.
func TestVaultWaitsForTheWriteGate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, store := openSQLite(t)
	gate := sqlite.NewWriteGate()
	v := newVault(t, db, store, mustKey(t), nil, &vault.Options{WriteGate: gate})
	if err := gate.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := v.Seal(ctx, "user:gated", "test", []byte("secret"))
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Seal returned (%v) while the gate was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	gate.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("Seal after the gate opened: %v", err)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, "user:gated"); n != 1 {
		t.Errorf("%d data keys for the subject, want 1", n)
	}
}
