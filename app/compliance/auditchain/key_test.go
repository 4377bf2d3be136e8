package auditchain_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/internal/testenv"
)

func TestSealingKeyLivesInTheVault(t *testing.T) {
	ctx := context.Background()
	s := testenv.OpenSQLite(t)
	v := testenv.Vault(t, s.DB, s.Store)
	if _, err := auditchain.LoadKey(ctx, s.DB, v); !errors.Is(err, auditchain.ErrNoKey) {
		t.Fatalf("before first use: %v", err)
	}
	// Created once, whoever asks first: every caller gets the same key.
	keys := make([][]byte, 4)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := auditchain.LoadOrCreateKey(ctx, s.DB, v, nil, fixedNow)
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if string(k) != string(keys[0]) {
			t.Fatal("two callers got different sealing keys")
		}
	}
	pub, err := auditchain.StoredPublicKey(ctx, s.DB)
	if err != nil || string(pub) != string(keys[0][32:]) {
		t.Fatalf("stored public key: %v", err)
	}
	// The private key is sealed, never in clear in the table.
	var stored string
	if err := s.DB.QueryRow(`SELECT private_key FROM audit_seal_keys`).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if len(stored) == 0 || string(keys[0][:32]) == stored {
		t.Fatal("private key stored in clear")
	}
	// A public key swapped in the table is noticed, not trusted.
	if _, err := s.DB.Exec(`UPDATE audit_seal_keys SET public_key = $1`, []byte(pubOf(newKey(t)))); err != nil {
		t.Fatal(err)
	}
	if _, err := auditchain.LoadKey(ctx, s.DB, v); !errors.Is(err, auditchain.ErrKeyMismatch) {
		t.Fatalf("swapped public key: %v", err)
	}
}
