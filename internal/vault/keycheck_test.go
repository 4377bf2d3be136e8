package vault_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// The key-check record, written at the first start, lets only the master key that wrote it (or a key
// it was rotated to) start the server again.
func TestCheckMasterKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, b, c := mustKey(t), mustKey(t), mustKey(t)
		if err := newVault(t, db, store, a, nil, nil).CheckMasterKeys(ctx); err != nil {
			t.Fatalf("first start: %v", err)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, vault.KeyCheckSubject); n != 1 {
			t.Fatalf("%d key-check records after the first start, want 1", n)
		}
		if err := newVault(t, db, store, a, nil, nil).CheckMasterKeys(ctx); err != nil {
			t.Fatalf("second start with the same key: %v", err)
		}

		err := newVault(t, db, store, b, []vault.MasterKey{c}, nil).CheckMasterKeys(ctx)
		var wrong *vault.WrongMasterKeyError
		if !errors.As(err, &wrong) || !errors.Is(err, vault.ErrWrongMasterKey) {
			t.Fatalf("start with another key: want a WrongMasterKeyError, got %v", err)
		}
		if wrong.Expected != a.ID() || wrong.Current != b.ID() || len(wrong.Previous) != 1 || wrong.Previous[0] != c.ID() {
			t.Fatalf("error names expected %s current %s previous %v", wrong.Expected, wrong.Current, wrong.Previous)
		}
		for _, id := range []string{a.ID(), b.ID(), c.ID(), vault.EnvKey, vault.EnvPreviousKey} {
			if !strings.Contains(err.Error(), id) {
				t.Errorf("message does not name %s: %v", id, err)
			}
		}
		if strings.Contains(err.Error(), a.Encode()) || strings.Contains(err.Error(), b.Encode()) {
			t.Fatalf("message contains a key: %v", err)
		}

		// Rotating: the new key current, the old one previous, starts; after keys rotate the new key
		// alone starts and the old one no longer does.
		rotating := newVault(t, db, store, b, []vault.MasterKey{a}, nil)
		if err := rotating.CheckMasterKeys(ctx); err != nil {
			t.Fatalf("start while rotating: %v", err)
		}
		if _, err := rotating.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		if err := newVault(t, db, store, b, nil, nil).CheckMasterKeys(ctx); err != nil {
			t.Fatalf("start with the new key after rotation: %v", err)
		}
		if err := newVault(t, db, store, a, nil, nil).CheckMasterKeys(ctx); !errors.Is(err, vault.ErrWrongMasterKey) {
			t.Fatalf("start with the retired key after rotation: %v", err)
		}
	})
}

// A database from before the key-check record existed is checked by one of its data keys, and gets
// its record once a right key starts it.
func TestCheckMasterKeysWithoutRecord(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, b := mustKey(t), mustKey(t)
		if _, err := newVault(t, db, store, a, nil, nil).Seal(ctx, "user-1", "test", []byte("secret")); err != nil {
			t.Fatal(err)
		}
		err := newVault(t, db, store, b, nil, nil).CheckMasterKeys(ctx)
		var wrong *vault.WrongMasterKeyError
		if !errors.As(err, &wrong) || wrong.Expected != a.ID() || wrong.Current != b.ID() {
			t.Fatalf("start with another key over existing data keys: %v", err)
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, vault.KeyCheckSubject); n != 0 {
			t.Fatal("a refused start wrote a key-check record")
		}
		if err := newVault(t, db, store, a, nil, nil).CheckMasterKeys(ctx); err != nil {
			t.Fatalf("start with the right key: %v", err)
		}
		if err := newVault(t, db, store, b, nil, nil).CheckMasterKeys(ctx); !errors.Is(err, vault.ErrWrongMasterKey) {
			t.Fatalf("the record does not refuse another key: %v", err)
		}
	})
}
