package vault_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
)

// OnFailure hears of a tampered blob, a data key sealed under a master key the vault lacks and nothing
// else: a success and a shredded subject are not failures.
func TestOnFailureReportsFailuresButNotShreds(t *testing.T) {
	ctx := context.Background()
	db, store := openSQLite(t)
	var mu sync.Mutex
	var got []string
	record := func(op, reason string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, op+":"+reason)
	}
	first := mustKey(t)
	v := newVault(t, db, store, first, nil, &vault.Options{OnFailure: record, CacheTTL: -1})
	subject := uuid.NewString()
	sealed, err := v.Seal(ctx, subject, "test:secret", []byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open(ctx, sealed, "test:secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open(ctx, sealed, "test:other-purpose"); err == nil {
		t.Fatal("opened with another purpose")
	}
	other := newVault(t, db, store, mustKey(t), nil, &vault.Options{OnFailure: record, CacheTTL: -1})
	if _, err := other.Open(ctx, sealed, "test:secret"); err == nil {
		t.Fatal("opened under a master key the vault was not given")
	}
	if err := v.Shred(ctx, subject, eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}); err != nil {
		t.Fatal(err)
	}
	if _, err := v.Open(ctx, sealed, "test:secret"); err == nil {
		t.Fatal("opened a shredded subject")
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"open:tampered", "open:master_key_missing"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("OnFailure heard %v, want %v", got, want)
	}
}
