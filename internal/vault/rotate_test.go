package vault_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// TestRotate seals under A, rotates to B with A as previous, opens; then drops A and still opens.
func TestRotate(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, b := mustKey(t), mustKey(t)
		va := newVault(t, db, store, a, nil, nil)
		var sealed []domain.Sealed
		for i := range 5 {
			s, err := va.Seal(ctx, fmt.Sprintf("user-%d", i), purpose, fmt.Appendf(nil, "token %d", i))
			if err != nil {
				t.Fatal(err)
			}
			sealed = append(sealed, s)
		}
		openAll := func(t *testing.T, v *vault.Vault) {
			t.Helper()
			for i, s := range sealed {
				got, err := v.Open(ctx, s, purpose)
				if err != nil || string(got) != fmt.Sprintf("token %d", i) {
					t.Fatalf("open %s: %q %v", s.Subject, got, err)
				}
			}
		}

		var progress [][2]int
		vb := newVault(t, db, store, b, []vault.MasterKey{a}, &vault.Options{
			RotateBatchSize:  2,
			OnRotateProgress: func(done, total int) { progress = append(progress, [2]int{done, total}) },
		})
		openAll(t, vb) // before rotation: data keys still sealed under A open through the previous key
		n, err := vb.Rotate(ctx)
		if err != nil || n != 5 {
			t.Fatalf("Rotate: resealed %d, %v; want 5", n, err)
		}
		if diff := cmp.Diff([][2]int{{2, 5}, {4, 5}, {5, 5}}, progress); diff != "" {
			t.Errorf("progress (-want +got):\n%s", diff)
		}
		usage, err := vb.MasterKeyUsage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{b.ID(): 5}, usage); diff != "" {
			t.Errorf("usage after rotation (-want +got):\n%s", diff)
		}
		if n, err := vb.Rotate(ctx); err != nil || n != 0 {
			t.Fatalf("second Rotate: resealed %d, %v; want 0", n, err)
		}

		onlyB := newVault(t, db, store, b, nil, nil) // A dropped
		openAll(t, onlyB)
		// The old vault, holding only A, now gets a clear error naming B.
		if _, err := newVault(t, db, store, a, nil, nil).Open(ctx, sealed[0], purpose); !errors.Is(err, vault.ErrMasterKeyMissing) || !strings.Contains(err.Error(), b.ID()) {
			t.Fatalf("open under A after rotation to B: %v", err)
		}
	})
}

// TestRotateResumes stops a rotation after its first batch and runs it again: it picks up the rest.
func TestRotateResumes(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		a, b := mustKey(t), mustKey(t)
		va := newVault(t, db, store, a, nil, nil)
		var sealed []domain.Sealed
		for i := range 7 {
			s, err := va.Seal(context.Background(), fmt.Sprintf("user-%02d", i), purpose, []byte("x"))
			if err != nil {
				t.Fatal(err)
			}
			sealed = append(sealed, s)
		}
		ctx, cancel := context.WithCancel(context.Background())
		vb := newVault(t, db, store, b, []vault.MasterKey{a}, &vault.Options{
			RotateBatchSize:  3,
			OnRotateProgress: func(int, int) { cancel() }, // "crash" after the first batch commits
		})
		n, err := vb.Rotate(ctx)
		if !errors.Is(err, context.Canceled) || n != 3 {
			t.Fatalf("interrupted Rotate: resealed %d, %v; want 3 and context.Canceled", n, err)
		}
		usage, err := vb.MasterKeyUsage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(map[string]int{a.ID(): 4, b.ID(): 3}, usage); diff != "" {
			t.Errorf("usage after an interrupted rotation (-want +got):\n%s", diff)
		}
		vb2 := newVault(t, db, store, b, []vault.MasterKey{a}, &vault.Options{RotateBatchSize: 3})
		if n, err := vb2.Rotate(context.Background()); err != nil || n != 4 {
			t.Fatalf("resumed Rotate: resealed %d, %v; want 4", n, err)
		}
		onlyB := newVault(t, db, store, b, nil, nil)
		for _, s := range sealed {
			if _, err := onlyB.Open(context.Background(), s, purpose); err != nil {
				t.Fatalf("open %s: %v", s.Subject, err)
			}
		}
	})
}

// TestRotateWithoutThePreviousKey rotates a key table that holds data keys sealed under a master the
// vault does not have: it stops and names that master.
func TestRotateWithoutThePreviousKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, c := mustKey(t), mustKey(t)
		if _, err := newVault(t, db, store, a, nil, nil).Seal(ctx, "alice", purpose, []byte("x")); err != nil {
			t.Fatal(err)
		}
		n, err := newVault(t, db, store, c, nil, nil).Rotate(ctx)
		var missing *vault.MasterKeyMissingError
		if !errors.As(err, &missing) || missing.MasterID != a.ID() || n != 0 {
			t.Fatalf("Rotate: resealed %d, %v; want a *MasterKeyMissingError naming %s", n, err, a.ID())
		}
	})
}
