package vault_test

import (
	"bytes"
	"context"
	"database/sql"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// A derived key is the same for every vault over the store and after the master key is rotated (and
// the old one dropped), differs by label and by subject, and is refused once its subject is shredded.
func TestDerivedKeySurvivesRotation(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *sql.DB, store eventstore.Store) {
		ctx := context.Background()
		a, b := mustKey(t), mustKey(t)
		va := newVault(t, db, store, a, nil, nil)
		k1, err := va.DerivedKey(ctx, "workbench-keys", "invitee-email")
		if err != nil || len(k1) != 32 {
			t.Fatalf("first derive: %x %v", k1, err)
		}
		if again, err := newVault(t, db, store, a, nil, nil).DerivedKey(ctx, "workbench-keys", "invitee-email"); err != nil || !bytes.Equal(again, k1) {
			t.Fatalf("another vault derives %x (%v), want %x", again, err, k1)
		}
		if other, _ := va.DerivedKey(ctx, "workbench-keys", "another-label"); bytes.Equal(other, k1) {
			t.Fatal("two labels derive one key")
		}
		if other, _ := va.DerivedKey(ctx, "other-subject", "invitee-email"); bytes.Equal(other, k1) {
			t.Fatal("two subjects derive one key")
		}
		vb := newVault(t, db, store, b, []vault.MasterKey{a}, nil)
		if _, err := vb.Rotate(ctx); err != nil {
			t.Fatal(err)
		}
		after, err := newVault(t, db, store, b, nil, nil).DerivedKey(ctx, "workbench-keys", "invitee-email")
		if err != nil || !bytes.Equal(after, k1) {
			t.Fatalf("after rotating to B and dropping A: %x (%v), want %x", after, err, k1)
		}
		if err := vb.Shred(ctx, "other-subject", eventstore.Metadata{Actor: "test"}); err != nil {
			t.Fatal(err)
		}
		if k, err := vb.DerivedKey(ctx, "other-subject", "invitee-email"); err == nil {
			t.Fatalf("derive for a shredded subject: %x", k)
		}
	})
}
