package vault_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

const purpose = "connection:github:credential"

func TestSealOpenRoundTrip(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		v := newVault(t, db, store, mustKey(t), nil, nil)
		tests := []struct {
			name      string
			plaintext []byte
		}{
			{"empty", []byte{}},
			{"short", []byte("ghp_abc")},
			{"binary", []byte{0, 1, 2, 0xff, 0xfe}},
			{"one MiB", bytes.Repeat([]byte("0123456789abcdef"), 1<<16)},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				s, err := v.Seal(ctx, "user-1", purpose, tc.plaintext)
				if err != nil {
					t.Fatalf("Seal: %v", err)
				}
				if s.Subject != "user-1" || s.KeyVersion != 1 {
					t.Fatalf("sealed as %q v%d, want user-1 v1", s.Subject, s.KeyVersion)
				}
				if got, want := len(s.Blob), 16+16+len(tc.plaintext); got != want {
					t.Fatalf("blob is %d bytes, want IV 16 + tag 16 + %d", got, len(tc.plaintext))
				}
				if len(tc.plaintext) >= 4 && bytes.Contains(s.Blob, tc.plaintext) {
					t.Fatal("blob contains the plaintext")
				}
				got, err := v.Open(ctx, s, purpose)
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				if !bytes.Equal(got, tc.plaintext) {
					t.Fatalf("opened %d bytes, not what was sealed", len(got))
				}
				again, err := v.Seal(ctx, "user-1", purpose, tc.plaintext)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Equal(again.Blob[:16], s.Blob[:16]) {
					t.Fatal("two seals used the same IV")
				}
			})
		}
		if n := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, "user-1"); n != 1 {
			t.Fatalf("user-1 has %d data keys, want 1", n)
		}
	})
}

// TestOpenRefusesTamperedOrMovedBlobs flips every byte of a blob, and moves an intact blob to another
// subject, key version and purpose: each must fail.
func TestOpenRefusesTamperedOrMovedBlobs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		v := newVault(t, db, store, mustKey(t), nil, nil)
		s, err := v.Seal(ctx, "alice", purpose, []byte("alice's refresh token"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Seal(ctx, "bob", purpose, []byte("bob's")); err != nil { // bob has a data key too
			t.Fatal(err)
		}
		for i := range s.Blob {
			for _, mask := range []byte{0x01, 0x80} {
				b := bytes.Clone(s.Blob)
				b[i] ^= mask
				_, err := v.Open(ctx, domain.Sealed{Subject: s.Subject, KeyVersion: s.KeyVersion, Blob: b}, purpose)
				if !errors.Is(err, vault.ErrTampered) {
					t.Fatalf("byte %d ^ %#x: got %v, want ErrTampered", i, mask, err)
				}
			}
		}
		moved := []struct {
			name   string
			sealed domain.Sealed
			purp   string
			want   error
		}{
			{"truncated", domain.Sealed{Subject: "alice", KeyVersion: 1, Blob: s.Blob[:len(s.Blob)-1]}, purpose, vault.ErrTampered},
			{"shorter than IV and tag", domain.Sealed{Subject: "alice", KeyVersion: 1, Blob: s.Blob[:31]}, purpose, vault.ErrTampered},
			{"extended", domain.Sealed{Subject: "alice", KeyVersion: 1, Blob: append(bytes.Clone(s.Blob), 0)}, purpose, vault.ErrTampered},
			{"copied to another subject", domain.Sealed{Subject: "bob", KeyVersion: 1, Blob: s.Blob}, purpose, vault.ErrTampered},
			{"opened for another purpose", s, "connection:slack:credential", vault.ErrTampered},
			{"another key version", domain.Sealed{Subject: "alice", KeyVersion: 2, Blob: s.Blob}, purpose, vault.ErrNoDataKey},
			{"key version zero", domain.Sealed{Subject: "alice", KeyVersion: 0, Blob: s.Blob}, purpose, vault.ErrTampered},
			{"subject with no keys", domain.Sealed{Subject: "carol", KeyVersion: 1, Blob: s.Blob}, purpose, vault.ErrNoDataKey},
		}
		for _, tc := range moved {
			t.Run(tc.name, func(t *testing.T) {
				got, err := v.Open(ctx, tc.sealed, tc.purp)
				if !errors.Is(err, tc.want) {
					t.Fatalf("got %q, %v; want %v", got, err, tc.want)
				}
				if strings.Contains(err.Error(), "refresh token") {
					t.Fatalf("error %q contains the secret", err)
				}
			})
		}
		if got, err := v.Open(ctx, s, purpose); err != nil || string(got) != "alice's refresh token" {
			t.Fatalf("the intact blob no longer opens: %v", err)
		}
	})
}

// TestTamperedDataKey alters the key table itself: a sealed data key that was changed, or moved to
// another subject's row, fails with ErrTampered and names the master key id.
func TestTamperedDataKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		master := mustKey(t)
		seed := newVault(t, db, store, master, nil, nil)
		sa, err := seed.Seal(ctx, "alice", purpose, []byte("a"))
		if err != nil {
			t.Fatal(err)
		}
		sb, err := seed.Seal(ctx, "bob", purpose, []byte("b"))
		if err != nil {
			t.Fatal(err)
		}
		// bob's row now holds alice's sealed data key: a row copied to another subject.
		if _, err := db.ExecContext(ctx, `UPDATE vault_data_keys SET sealed_key = (SELECT sealed_key FROM vault_data_keys WHERE subject = $1) WHERE subject = $2`, "alice", "bob"); err != nil {
			t.Fatal(err)
		}
		// alice's row has one byte changed.
		var key []byte
		if err := db.QueryRowContext(ctx, `SELECT sealed_key FROM vault_data_keys WHERE subject = $1`, "alice").Scan(&key); err != nil {
			t.Fatal(err)
		}
		key[40] ^= 1
		if _, err := db.ExecContext(ctx, `UPDATE vault_data_keys SET sealed_key = $1 WHERE subject = $2`, key, "alice"); err != nil {
			t.Fatal(err)
		}
		fresh := newVault(t, db, store, master, nil, nil) // no cache
		for _, s := range []domain.Sealed{sa, sb} {
			_, err := fresh.Open(ctx, s, purpose)
			if !errors.Is(err, vault.ErrTampered) || !strings.Contains(err.Error(), master.ID()) {
				t.Errorf("%s: got %v, want ErrTampered naming master %s", s.Subject, err, master.ID())
			}
		}
	})
}

func TestWrongMasterKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, b := mustKey(t), mustKey(t)
		va := newVault(t, db, store, a, nil, nil)
		s, err := va.Seal(ctx, "alice", purpose, []byte("secret"))
		if err != nil {
			t.Fatal(err)
		}
		vb := newVault(t, db, store, b, nil, nil)
		_, err = vb.Open(ctx, s, purpose)
		var missing *vault.MasterKeyMissingError
		if !errors.As(err, &missing) || !errors.Is(err, vault.ErrMasterKeyMissing) {
			t.Fatalf("got %v, want a *MasterKeyMissingError", err)
		}
		if missing.MasterID != a.ID() || missing.Subject != "alice" || missing.Version != 1 {
			t.Fatalf("error names %+v", missing)
		}
		for _, w := range []string{a.ID(), b.ID(), "ENCRYPTION_KEY_PREVIOUS"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not mention %q", err, w)
			}
		}
		if _, err := vb.Seal(ctx, "alice", purpose, []byte("more")); !errors.Is(err, vault.ErrMasterKeyMissing) {
			t.Fatalf("Seal under a data key whose master is missing: got %v", err)
		}
		// A subject first sealed under b is unaffected.
		sb, err := vb.Seal(ctx, "bob", purpose, []byte("bob"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := vb.Open(ctx, sb, purpose); err != nil {
			t.Fatal(err)
		}
	})
}

func TestArgumentErrors(t *testing.T) {
	db, store := openSQLite(t)
	ctx := context.Background()
	v := newVault(t, db, store, mustKey(t), nil, nil)
	tests := []struct {
		name    string
		subject string
		purpose string
	}{
		{"empty subject", "", purpose},
		{"empty purpose", "alice", ""},
		{"long subject", strings.Repeat("x", 256), purpose},
		{"subject not UTF-8", "a\xffb", purpose},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := v.Seal(ctx, tc.subject, tc.purpose, []byte("x")); err == nil {
				t.Fatal("Seal accepted it")
			}
		})
	}
	if _, err := vault.New(db, store, vault.MasterKey{}, nil, nil); err == nil || !strings.Contains(err.Error(), "ENCRYPTION_KEY") {
		t.Fatalf("New without a master key: %v", err)
	}
}

// TestConcurrentFirstSeal has many goroutines seal for one new subject at once, on both dialects: all
// agree on one data key.
func TestConcurrentFirstSeal(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		master := mustKey(t)
		vaults := []*vault.Vault{newVault(t, db, store, master, nil, nil), newVault(t, db, store, master, nil, nil)}
		const n = 16
		sealed := make([]domain.Sealed, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sealed[i], errs[i] = vaults[i%2].Seal(ctx, "newcomer", purpose, fmt.Appendf(nil, "secret %d", i))
			}()
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("seal %d: %v", i, errs[i])
			}
			got, err := vaults[(i+1)%2].Open(ctx, sealed[i], purpose)
			if err != nil || string(got) != fmt.Sprintf("secret %d", i) {
				t.Fatalf("open %d: %q %v", i, got, err)
			}
		}
		if c := countRows(t, db, `SELECT COUNT(*) FROM vault_data_keys WHERE subject = $1`, "newcomer"); c != 1 {
			t.Fatalf("%d data keys, want 1", c)
		}
	})
}
