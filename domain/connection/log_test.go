package connection_test

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
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
)

func aggregate() eventstore.Aggregate[connection.State, connection.Command, domain.Event] {
	return eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
		Initial: connection.Initial,
		Evolve:  connection.Evolve,
		Decide:  connection.Decide,
		Codec:   eventstore.NewJSONCodec(connection.Events()...),
	}
}

func TestEvents(t *testing.T) {
	seen := map[string]bool{}
	for _, ev := range connection.Events() {
		typ := ev.EventType()
		if !strings.HasPrefix(typ, "connection.") || seen[typ] {
			t.Errorf("event type %q: want a unique connection.* name", typ)
		}
		seen[typ] = true
	}
	if len(seen) != 7 {
		t.Errorf("Events() has %d types, want 7", len(seen))
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
		{startedA1, []string{"attempt_id", "auth_mode", "expires_at", "integration", "started_at", "user_id"}},
		{connection.PendingExpired{AttemptID: a1, UserID: userID, Integration: gh, Reason: connection.ExpirySuperseded, At: t0.Add(time.Minute)}, []string{"at", "attempt_id", "integration", "reason", "user_id"}},
		{connection.Started{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, StartedAt: t0.Add(time.Minute), ExpiresAt: a1Exp}, []string{"attempt_id", "auth_mode", "expires_at", "integration", "started_at", "user_id"}},
		{
			connection.Connected{AttemptID: a2, UserID: userID, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: cred1, ExpiresAt: credExp, Scopes: []string{"repo", "read:org"}, AccountHint: "octocat", ConnectedAt: tConn.Add(123456789 * time.Nanosecond)},
			[]string{"account_hint", "attempt_id", "auth_mode", "connected_at", "credential", "expires_at", "integration", "scopes", "user_id"},
		},
		{connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred2, ExpiresAt: ref2Exp, RefreshedAt: tRef, KeptOldRefreshToken: true}, []string{"credential", "expires_at", "integration", "kept_old_refresh_token", "refreshed_at", "user_id"}},
		{connection.TokenRefreshed{UserID: userID, Integration: gh, Credential: cred3, RefreshedAt: ref2Exp}, []string{"credential", "integration", "refreshed_at", "user_id"}},
		{reauthNeeded, []string{"at", "integration", "reason", "user_id"}},
		{connection.Started{AttemptID: a3, UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, StartedAt: tLater, ExpiresAt: a2Exp}, []string{"attempt_id", "auth_mode", "expires_at", "integration", "started_at", "user_id"}},
		{directKey(tLast), []string{"auth_mode", "connected_at", "credential", "integration", "user_id"}},
		{connection.Disconnected{UserID: userID, Integration: gh, At: tLast.Add(time.Minute)}, []string{"at", "integration", "user_id"}},
		{disconnected1, []string{"at", "integration", "reason", "user_id"}},
		// Another account's events name it; the default account's never do (above).
		{connection.Connected{UserID: userID, Integration: gh, Account: "work", AuthMode: connection.AuthAPIKey, Credential: cred3, ConnectedAt: tLast.Add(2 * time.Minute)}, []string{"account", "auth_mode", "connected_at", "credential", "integration", "user_id"}},
		{connection.DefaultChosen{UserID: userID, Integration: gh, Account: "work", At: tLast.Add(3 * time.Minute)}, []string{"account", "at", "integration", "user_id"}},
	}
	codec := eventstore.NewJSONCodec(connection.Events()...)
	var original, decoded []domain.Event
	covered := map[string]bool{}
	for _, h := range history {
		typ, sv, data, err := codec.Encode(h.ev)
		if err != nil {
			t.Fatalf("encode %T: %v", h.ev, err)
		}
		covered[typ] = true
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
		// Fold after every event, so every intermediate state is compared too.
		if diff := cmp.Diff(fold(original), fold(decoded)); diff != "" {
			t.Fatalf("folded state differs after %s (-want +got):\n%s", typ, diff)
		}
	}
	for _, ev := range connection.Events() {
		if !covered[ev.EventType()] {
			t.Errorf("%s is not in the round trip", ev.EventType())
		}
	}
}

// directKey is an API key connected from the portal with no attempt.
func directKey(at time.Time) connection.Connected {
	return connection.Connected{UserID: userID, Integration: gh, AuthMode: connection.AuthAPIKey, Credential: cred3, ConnectedAt: at}
}

func TestThroughTheCommandLoop(t *testing.T) {
	ctx := context.Background()
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	user := uuid.New()
	stream := connection.StreamName(user, gh, "")
	seal := func(s string) domain.Sealed {
		return domain.Sealed{Subject: user.String(), KeyVersion: 1, Blob: []byte(s)}
	}
	exec := func(cmd connection.Command) (eventstore.Result[connection.State, domain.Event], error) {
		return eventstore.Execute(ctx, store, stream, aggregate(), cmd, eventstore.Metadata{Actor: user.String()})
	}
	types := func() []string {
		envs, err := store.Load(ctx, stream, 1)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range envs {
			out = append(out, strings.TrimPrefix(e.Type, "connection."))
		}
		return out
	}
	now := time.Now().UTC()

	// connect() twice: the second attempt supersedes the first.
	first, second := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{first, second} {
		if _, err := exec(connection.Start{AttemptID: id, UserID: user, Integration: gh, AuthMode: connection.AuthOAuth2, At: now, ExpiresAt: now.Add(10 * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	// The first attempt's callback is refused; the second's connects.
	connect := func(id uuid.UUID) connection.Connect {
		return connection.Connect{AttemptID: id, UserID: user, Integration: gh, AuthMode: connection.AuthOAuth2, Credential: seal("token-1"), ExpiresAt: now.Add(time.Minute + 20*time.Second), At: now.Add(time.Minute)}
	}
	if _, err := exec(connect(first)); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("callback of the superseded attempt: %v; want a conflict", err)
	}
	res, err := exec(connect(second))
	if err != nil {
		t.Fatal(err)
	}
	if res.State.Status() != connection.StatusConnected || !res.State.NeedsRefresh(now.Add(time.Minute), connection.RefreshWindow) {
		t.Fatalf("after connect: %s, needs refresh %v", res.State.Status(), res.State.NeedsRefresh(now.Add(time.Minute), connection.RefreshWindow))
	}

	// Twenty replicas read the expiring token at once and all refresh it: one refresh is stored, the
	// others learn that the credential changed and must re-read it.
	const n = 20
	var read, wg sync.WaitGroup
	read.Add(n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			s, _, err := eventstore.LoadState(ctx, store, stream, aggregate())
			read.Done()
			if err != nil {
				errs[i] = err
				return
			}
			read.Wait() // everyone has read generation 1 before anyone appends
			_, errs[i] = exec(connection.Refresh{Generation: s.Generation, Credential: seal(fmt.Sprint("token-2-", i)), ExpiresAt: now.Add(time.Hour), At: now.Add(2 * time.Minute)})
		})
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case domain.ErrorCode(err) != domain.CodeConflict || !errors.Is(err, connection.ErrCredentialChanged):
			t.Fatalf("refresh %d: %v; want a conflict wrapping ErrCredentialChanged", i, err)
		}
	}
	if won != 1 {
		t.Fatalf("%d refreshes were stored, want 1", won)
	}

	// A loser's late invalid_grant does not withdraw the winner's credential; the current one's does.
	if _, err := exec(connection.RequireReauth{Generation: 1, Reason: "invalid_grant", At: now.Add(3 * time.Minute)}); !errors.Is(err, connection.ErrCredentialChanged) {
		t.Fatalf("stale invalid_grant: %v; want ErrCredentialChanged", err)
	}
	if _, err := exec(connection.RequireReauth{Generation: 2, Reason: "invalid_grant", At: now.Add(3 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if _, err := exec(connection.Refresh{Generation: 2, Credential: seal("x"), At: now.Add(4 * time.Minute)}); domain.ErrorCode(err) != domain.CodeNotConnected {
		t.Fatalf("refresh after invalid_grant: %v; want not_connected", err)
	}

	// Reconnect, then disconnect.
	third := uuid.New()
	if _, err := exec(connection.Start{AttemptID: third, UserID: user, Integration: gh, AuthMode: connection.AuthOAuth2, At: now.Add(5 * time.Minute), ExpiresAt: now.Add(15 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	c := connect(third)
	c.At = now.Add(6 * time.Minute)
	c.ExpiresAt = now.Add(time.Hour)
	if res, err = exec(c); err != nil || res.State.Generation != 3 {
		t.Fatalf("reconnect: generation %d, %v", res.State.Generation, err)
	}
	if res, err = exec(connection.Disconnect{Reason: "user request", At: now.Add(7 * time.Minute)}); err != nil {
		t.Fatal(err)
	}
	want := []string{"started", "pending_expired", "started", "connected", "token_refreshed", "reauthorization_required", "started", "connected", "disconnected"}
	if diff := cmp.Diff(want, types()); diff != "" {
		t.Fatalf("stream (-want +got):\n%s", diff)
	}
	again, version, err := eventstore.LoadState(ctx, store, stream, aggregate())
	if err != nil || version != res.Version {
		t.Fatalf("reload at version %d (%v), want %d", version, err, res.Version)
	}
	if diff := cmp.Diff(res.State, again); diff != "" {
		t.Fatalf("reloaded state differs (-loop +log):\n%s", diff)
	}
}
