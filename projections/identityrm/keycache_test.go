package identityrm_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/identityrm"
)

// fakeOwners answers from a map and counts the lookups; block, when set, holds a lookup until closed.
type fakeOwners struct {
	mu      sync.Mutex
	owners  map[string]identityrm.User
	calls   int
	entered chan struct{}
	block   chan struct{}
}

func (f *fakeOwners) OwnerByKeyHash(ctx context.Context, hash string) (identityrm.KeyOwner, error) {
	u, key, err := f.userByKeyHash(ctx, hash)
	return identityrm.KeyOwner{User: u, KeyID: key, AgentID: identitydom.DefaultAgentID(u.ID)}, err
}

func (f *fakeOwners) userByKeyHash(_ context.Context, hash string) (identityrm.User, uuid.UUID, error) {
	f.mu.Lock()
	f.calls++
	u, ok := f.owners[hash]
	block, entered := f.block, f.entered
	f.mu.Unlock()
	if block != nil {
		entered <- struct{}{}
		<-block
	}
	if !ok {
		return identityrm.User{}, uuid.Nil, identityrm.ErrNotFound
	}
	return u, uuid.NewSHA1(uuid.Nil, []byte(hash)), nil
}

func (f *fakeOwners) set(hash string, u *identityrm.User) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if u == nil {
		delete(f.owners, hash)
		return
	}
	f.owners[hash] = *u
}

func (f *fakeOwners) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func batch(types ...string) []eventstore.Envelope {
	out := make([]eventstore.Envelope, len(types))
	for i, typ := range types {
		out[i] = eventstore.Envelope{Type: typ}
	}
	return out
}

func TestKeyCache(t *testing.T) {
	ctx := context.Background()
	ada := identityrm.User{ID: uuid.New(), Email: "ada@example.com"}
	src := &fakeOwners{owners: map[string]identityrm.User{"h1": ada}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := identityrm.NewKeyCache(src, &identityrm.KeyCacheOptions{MaxAge: time.Minute, Now: func() time.Time { return now }})
	lookup := func() (identityrm.User, error) {
		t.Helper()
		u, _, err := c.UserByKeyHash(ctx, "h1")
		return u, err
	}

	for range 3 {
		if u, err := lookup(); err != nil || u.Email != ada.Email {
			t.Fatalf("lookup = %v, %v", u, err)
		}
	}
	if n := src.count(); n != 1 {
		t.Fatalf("%d lookups reached the read model, want 1", n)
	}

	// An email claim changes no key owner; a revocation empties the cache.
	c.Forget(batch(identitydom.TypeEmailClaimed))
	lookup() //nolint:errcheck
	if n := src.count(); n != 1 {
		t.Fatalf("an email claim emptied the cache (%d lookups)", n)
	}
	src.set("h1", nil)
	c.Forget(batch(identitydom.TypeEmailClaimed, identitydom.TypeAPIKeyRevoked))
	if _, err := lookup(); !errors.Is(err, identityrm.ErrNotFound) {
		t.Fatalf("revoked key: %v, want ErrNotFound", err)
	}
	// Unknown keys are not kept: once the key is live again, it is found.
	src.set("h1", &ada)
	if _, err := lookup(); err != nil {
		t.Fatalf("live again: %v", err)
	}

	// A lookup that read the read model before a batch was applied is not kept.
	src.mu.Lock()
	src.block, src.entered = make(chan struct{}), make(chan struct{})
	src.mu.Unlock()
	c.Forget(batch(identitydom.TypeAPIKeyRotated)) // so the next lookup reaches the read model
	done := make(chan struct{})
	go func() {
		defer close(done)
		lookup() //nolint:errcheck // answers the live key read before the rotation below
	}()
	<-src.entered
	c.Forget(batch(identitydom.TypeAPIKeyRotated))
	src.mu.Lock()
	block := src.block
	src.block = nil
	src.mu.Unlock()
	close(block)
	<-done
	before := src.count()
	lookup() //nolint:errcheck
	if src.count() != before+1 {
		t.Fatal("an answer read before a rotation was kept")
	}

	// Entries expire after MaxAge.
	before = src.count()
	lookup() //nolint:errcheck
	now = now.Add(2 * time.Minute)
	lookup() //nolint:errcheck
	if src.count() != before+1 {
		t.Fatalf("%d lookups after MaxAge, want 1", src.count()-before)
	}
}

// A batch applied by another replica's runner reaches the cache as a nil batch (Runner.AfterApply
// after a checkpoint reload), and an erasure as identity.user_erased: both drop what was cached, so
// a key revoked or a user erased through another replica is refused here too.
func TestKeyCacheForgetsOnMovesElsewhereAndErasure(t *testing.T) {
	ctx := context.Background()
	ada := identityrm.User{ID: uuid.New(), Email: "ada@example.com"}
	for _, tc := range []struct {
		name  string
		batch []eventstore.Envelope
	}{
		{"moved by another runner", nil},
		{"user erased", batch(identitydom.TypeUserErased)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := &fakeOwners{owners: map[string]identityrm.User{"h1": ada}}
			c := identityrm.NewKeyCache(src, nil)
			if _, err := c.OwnerByKeyHash(ctx, "h1"); err != nil {
				t.Fatal(err)
			}
			src.set("h1", nil) // revoked, or erased, as the read model now says
			if _, err := c.OwnerByKeyHash(ctx, "h1"); err != nil {
				t.Fatalf("before Forget the cached answer stands: %v", err)
			}
			c.Forget(tc.batch)
			if _, err := c.OwnerByKeyHash(ctx, "h1"); !errors.Is(err, identityrm.ErrNotFound) {
				t.Fatalf("after Forget(%v): %v, want ErrNotFound", tc.batch, err)
			}
		})
	}
}
