package identitydom_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
)

func userAggregate() eventstore.Aggregate[identitydom.State, identitydom.Command, domain.Event] {
	return eventstore.Aggregate[identitydom.State, identitydom.Command, domain.Event]{
		Initial: identitydom.Initial,
		Evolve:  identitydom.Evolve,
		Decide:  identitydom.Decide,
		Codec:   eventstore.NewJSONCodec(identitydom.Events()...),
	}
}

func emailAggregate() eventstore.Aggregate[identitydom.EmailClaim, identitydom.ClaimEmail, domain.Event] {
	return eventstore.Aggregate[identitydom.EmailClaim, identitydom.ClaimEmail, domain.Event]{
		Initial: identitydom.InitialEmailClaim,
		Evolve:  identitydom.EvolveEmailClaim,
		Decide:  identitydom.DecideEmailClaim,
		Codec:   eventstore.NewJSONCodec(identitydom.Events()...),
	}
}

func TestEvents(t *testing.T) {
	seen := map[string]bool{}
	for _, ev := range identitydom.Events() {
		typ := ev.EventType()
		if !strings.HasPrefix(typ, "identity.") || seen[typ] {
			t.Errorf("event type %q: want a unique identity.* name", typ)
		}
		seen[typ] = true
	}
	if len(seen) != 6 {
		t.Errorf("Events() has %d types, want 6", len(seen))
	}
}

// Every event survives the log: encoded by the codec the wiring uses, decoded by its type name, and
// folded, it gives the same state as the events themselves. The field names are the log's format and
// are pinned here.
func TestEventsSurviveTheLog(t *testing.T) {
	history := []struct {
		ev     domain.Event
		fields []string // the JSON keys, sorted
	}{
		{created, []string{"created_at", "display_name", "email", "user_id"}},
		{mintedA, []string{"hash", "key_id", "minted_at", "prefix", "user_id"}}, // no sealed secret: no "sealed"
		{
			identitydom.APIKeyRotated{UserID: userID, OldKeyID: keyA, KeyID: keyB, Hash: hashB, Prefix: prefixB, Sealed: sealedC, RotatedAt: t2},
			[]string{"hash", "key_id", "old_key_id", "prefix", "rotated_at", "sealed", "user_id"},
		},
		{identitydom.APIKeyRevoked{UserID: userID, KeyID: keyB, RevokedAt: t3}, []string{"key_id", "revoked_at", "user_id"}},
		{
			identitydom.APIKeyMinted{UserID: userID, KeyID: keyC, Hash: hashC, Prefix: prefixC, Sealed: sealedC, MintedAt: t3.Add(time.Nanosecond)},
			[]string{"hash", "key_id", "minted_at", "prefix", "sealed", "user_id"},
		},
		{identitydom.EmailClaimed{Email: "alice@example.com", UserID: userID, ClaimedAt: t0}, []string{"claimed_at", "email", "user_id"}},
		{erasedAt3, []string{"erased_at", "pseudonym", "user_id"}},
		{identitydom.EmailClaimed{UserID: otherID, ClaimedAt: t1}, []string{"claimed_at", "user_id"}},
		{identitydom.UserCreated{UserID: otherID, Profile: sealedProfile, CreatedAt: t1}, []string{"created_at", "profile", "user_id"}},
	}
	codec := eventstore.NewJSONCodec(identitydom.Events()...)
	var original, decoded []domain.Event
	for _, h := range history {
		typ, sv, data, err := codec.Encode(h.ev)
		if err != nil {
			t.Fatalf("encode %T: %v", h.ev, err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, h.fields) {
			t.Errorf("%s fields = %v, want %v", typ, got, h.fields)
		}
		back, err := codec.Decode(typ, sv, data)
		if err != nil {
			t.Fatalf("decode %s: %v", typ, err)
		}
		if diff := cmp.Diff(h.ev, back); diff != "" {
			t.Errorf("%s changed in the log (-want +got):\n%s", typ, diff)
		}
		original, decoded = append(original, h.ev), append(decoded, back)
	}
	if diff := cmp.Diff(fold(original), fold(decoded)); diff != "" {
		t.Fatalf("folded user differs after the log (-want +got):\n%s", diff)
	}
	claimOf := func(evs []domain.Event) identitydom.EmailClaim {
		c := identitydom.InitialEmailClaim()
		for _, ev := range evs {
			c = identitydom.EvolveEmailClaim(c, ev)
		}
		return c
	}
	if got := claimOf(decoded); got.UserID != userID || got != claimOf(original) {
		t.Fatalf("decoded claim folds to %+v", got)
	}
}

// createUser is the two-step create of doc.go, run through the real command loop.
func createUser(ctx context.Context, store eventstore.Store, email, name string, at time.Time) (uuid.UUID, error) {
	id := uuid.New()
	_, err := eventstore.Execute(ctx, store, identitydom.EmailStreamName(email), emailAggregate(),
		identitydom.ClaimEmail{Email: email, UserID: id, At: at}, eventstore.Metadata{Actor: "test"})
	var taken *identitydom.EmailClaimedError
	switch {
	case errors.As(err, &taken):
		id = taken.UserID
		user, _, err := eventstore.LoadState(ctx, store, identitydom.StreamName(id), userAggregate())
		if err != nil {
			return uuid.Nil, err
		}
		if user.Exists() {
			return id, nil
		}
		// The claim's user was never created: take the claim over by creating it now.
	case err != nil:
		return uuid.Nil, err
	}
	_, err = eventstore.Execute(ctx, store, identitydom.StreamName(id), userAggregate(),
		identitydom.Command(identitydom.CreateUser{UserID: id, Email: email, DisplayName: name, At: at}), eventstore.Metadata{Actor: "test"})
	if domain.ErrorCode(err) == domain.CodeConflict {
		return id, nil // a concurrent creator finished first
	}
	return id, err
}

func TestThroughTheCommandLoop(t *testing.T) {
	ctx := context.Background()
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })

	alice, err := createUser(ctx, store, "Alice@Example.com", "Alice", t0)
	if err != nil {
		t.Fatal(err)
	}
	again, err := createUser(ctx, store, "alice@example.com", "Someone Else", t1)
	if err != nil || again != alice {
		t.Fatalf("second create of the same address = %s, %v; want the first user %s", again, err, alice)
	}
	user, version, err := eventstore.LoadState(ctx, store, identitydom.StreamName(alice), userAggregate())
	if err != nil || version != 1 || user.Email != "alice@example.com" || user.DisplayName != "Alice" {
		t.Fatalf("alice = %+v at version %d, %v", user, version, err)
	}

	t.Run("an orphaned claim is taken over", func(t *testing.T) {
		orphan := uuid.New()
		if _, err := eventstore.Execute(ctx, store, identitydom.EmailStreamName("bob@example.com"), emailAggregate(),
			identitydom.ClaimEmail{Email: "bob@example.com", UserID: orphan, At: t0}, eventstore.Metadata{}); err != nil {
			t.Fatal(err)
		}
		got, err := createUser(ctx, store, "BOB@example.com", "Bob", t1)
		if err != nil || got != orphan {
			t.Fatalf("create over an orphaned claim = %s, %v; want the claimed id %s", got, err, orphan)
		}
		bob, _, err := eventstore.LoadState(ctx, store, identitydom.StreamName(orphan), userAggregate())
		if err != nil || !bob.Exists() || bob.Email != "bob@example.com" {
			t.Fatalf("bob = %+v, %v", bob, err)
		}
	})

	t.Run("concurrent creates of one address make one user", func(t *testing.T) {
		const n = 20
		ids := make([]uuid.UUID, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { ids[i], errs[i] = createUser(ctx, store, "carol@example.com", fmt.Sprint("Carol ", i), t2) })
		}
		wg.Wait()
		for i := range n {
			if errs[i] != nil || ids[i] != ids[0] {
				t.Fatalf("creator %d = %s, %v; creator 0 = %s", i, ids[i], errs[i], ids[0])
			}
		}
		for _, stream := range []string{identitydom.StreamName(ids[0]), identitydom.EmailStreamName("carol@example.com")} {
			envs, err := store.Load(ctx, stream, 1)
			if err != nil || len(envs) != 1 {
				t.Fatalf("%s holds %d events, %v; want 1", stream, len(envs), err)
			}
		}
	})

	t.Run("api key life", func(t *testing.T) {
		stream := identitydom.StreamName(alice)
		mint := func(at time.Time) (string, identitydom.MintAPIKey) {
			secret, hash, prefix := identitydom.NewAPIKey()
			return secret, identitydom.MintAPIKey{KeyID: uuid.New(), Hash: hash, Prefix: prefix, At: at}
		}
		// Ten concurrent mints: exactly one wins; the others see its key and are refused.
		const n = 10
		secrets := make([]string, n)
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				var cmd identitydom.MintAPIKey
				secrets[i], cmd = mint(t1)
				_, errs[i] = eventstore.Execute(ctx, store, stream, userAggregate(), identitydom.Command(cmd), eventstore.Metadata{Actor: alice.String()})
			})
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Fatalf("mints %d and %d both succeeded", winner, i)
			case domain.ErrorCode(err) != domain.CodeConflict:
				t.Fatalf("losing mint %d: %v; want a conflict", i, err)
			}
		}
		if winner < 0 {
			t.Fatal("no mint succeeded")
		}
		user, _, err := eventstore.LoadState(ctx, store, stream, userAggregate())
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := user.Authenticate(secrets[winner]); !ok {
			t.Fatal("the winning key does not authenticate")
		}
		live, _ := user.LiveKey()

		newSecret, hash, prefix := identitydom.NewAPIKey()
		res, err := eventstore.Execute(ctx, store, stream, userAggregate(), identitydom.Command(identitydom.RotateAPIKey{
			OldKeyID: live.KeyID, KeyID: uuid.New(), Hash: hash, Prefix: prefix, At: t2,
		}), eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.State.Authenticate(secrets[winner]); ok {
			t.Error("the rotated-out key still authenticates")
		}
		if _, ok := res.State.Authenticate(newSecret); !ok {
			t.Error("the new key does not authenticate")
		}
		res, err = eventstore.Execute(ctx, store, stream, userAggregate(), identitydom.Command(identitydom.RevokeAPIKey{At: t3}), eventstore.Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := res.State.LiveKey(); ok {
			t.Error("a live key after revoke")
		}
		_, err = eventstore.Execute(ctx, store, stream, userAggregate(), identitydom.Command(identitydom.RevokeAPIKey{At: t3}), eventstore.Metadata{})
		if domain.ErrorCode(err) != domain.CodeConflict {
			t.Fatalf("second revoke: %v; want a conflict", err)
		}
		// The log folds to the state the loop returned.
		again, version, err := eventstore.LoadState(ctx, store, stream, userAggregate())
		if err != nil || version != res.Version {
			t.Fatalf("reload at version %d (%v), want %d", version, err, res.Version)
		}
		if diff := cmp.Diff(res.State, again); diff != "" {
			t.Fatalf("reloaded state differs (-loop +log):\n%s", diff)
		}
	})
}
