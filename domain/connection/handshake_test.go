package connection_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

func TestHandshakeDecide(t *testing.T) {
	user, attempt := uuid.New(), uuid.New()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	hash := strings.Repeat("ab", 32)
	verifier := domain.Sealed{Subject: user.String(), KeyVersion: 1, Blob: make([]byte, 40)}
	start := connection.StartHandshake{StateHash: hash, AttemptID: attempt, UserID: user, Integration: "acme", Verifier: verifier,
		RedirectURI: "https://wb.example/api/auth/plugin/acme/callback", At: now, ExpiresAt: now.Add(10 * time.Minute)}
	started := connection.InitialHandshake()
	evs, err := connection.DecideHandshake(started, start)
	if err != nil || len(evs) != 1 {
		t.Fatalf("start: %v %v", evs, err)
	}
	started = connection.EvolveHandshake(started, evs[0])
	used := connection.EvolveHandshake(started, connection.HandshakeCallbackReceived{At: now})

	withVerifier := func(s domain.Sealed) connection.StartHandshake { c := start; c.Verifier = s; return c }
	withHash := func(h string) connection.StartHandshake { c := start; c.StateHash = h; return c }
	cases := []struct {
		name  string
		state connection.Handshake
		cmd   connection.HandshakeCommand
		code  domain.Code
		cause error
	}{
		{"start twice", started, start, domain.CodeConflict, nil},
		{"start with a bad hash", connection.InitialHandshake(), withHash("xyz"), domain.CodeInvalid, nil},
		{"start with another user's verifier", connection.InitialHandshake(), withVerifier(domain.Sealed{Subject: uuid.NewString(), Blob: []byte{1}}), domain.CodeInvalid, nil},
		{"callback for no handshake", connection.InitialHandshake(), connection.ReceiveCallback{At: now}, domain.CodeNotFound, nil},
		{"callback replayed", used, connection.ReceiveCallback{At: now}, domain.CodeConflict, connection.ErrHandshakeUsed},
		{"callback after expiry", started, connection.ReceiveCallback{At: now.Add(10 * time.Minute)}, domain.CodeConflict, connection.ErrHandshakeExpired},
		{"callback", started, connection.ReceiveCallback{ProviderError: "access_denied", At: now}, "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := connection.DecideHandshake(tc.state, tc.cmd)
			if tc.code == "" {
				if err != nil || len(evs) != 1 {
					t.Fatalf("got %v %v", evs, err)
				}
				return
			}
			if domain.ErrorCode(err) != tc.code || (tc.cause != nil && !errors.Is(err, tc.cause)) {
				t.Fatalf("got %v, want %s (%v)", err, tc.code, tc.cause)
			}
		})
	}
}

func TestRefreshLeaseDecide(t *testing.T) {
	user, mine, theirs := uuid.New(), uuid.New(), uuid.New()
	now := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	held := connection.RefreshLease{Generation: 3, ClaimID: theirs, Until: now.Add(30 * time.Second)}
	claim := func(gen int64, at time.Time) connection.ClaimRefresh {
		return connection.ClaimRefresh{UserID: user, Integration: "acme", Generation: gen, ClaimID: mine, At: at, Until: at.Add(30 * time.Second)}
	}
	cases := []struct {
		name   string
		lease  connection.RefreshLease
		cmd    connection.ClaimRefresh
		events int
		cause  error
	}{
		{"first claim", connection.InitialRefreshLease(), claim(1, now), 1, nil},
		{"a newer generation", held, claim(4, now), 1, nil},
		{"held by another", held, claim(3, now), 0, connection.ErrRefreshClaimed},
		{"lapsed claim taken over", held, claim(3, now.Add(30*time.Second)), 1, nil},
		{"an older generation", held, claim(2, now), 0, connection.ErrCredentialChanged},
		{"the same claim again", connection.RefreshLease{Generation: 3, ClaimID: mine, Until: now.Add(time.Minute)}, claim(3, now), 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := connection.DecideRefreshLease(tc.lease, tc.cmd)
			if tc.cause != nil {
				if domain.ErrorCode(err) != domain.CodeConflict || !errors.Is(err, tc.cause) {
					t.Fatalf("got %v, want a conflict caused by %v", err, tc.cause)
				}
				return
			}
			if err != nil || len(evs) != tc.events {
				t.Fatalf("got %v %v, want %d events", evs, err, tc.events)
			}
		})
	}
}
