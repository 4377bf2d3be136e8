package identitydom_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// Fixtures: one user, three keys (A, B, C) with fixed secrets, and fixed times.
var (
	userID  = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	otherID = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	keyA    = uuid.MustParse("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa")
	keyB    = uuid.MustParse("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb")
	keyC    = uuid.MustParse("cccccccc-cccc-4ccc-8ccc-cccccccccccc")

	secretA = "wb_" + strings.Repeat("A", 43)
	secretB = "wb_" + strings.Repeat("B", 43)
	secretC = "wb_" + strings.Repeat("C", 43)
	hashA   = identitydom.HashAPIKey(secretA)
	hashB   = identitydom.HashAPIKey(secretB)
	hashC   = identitydom.HashAPIKey(secretC)
	prefixA = identitydom.DisplayPrefix(secretA)
	prefixB = identitydom.DisplayPrefix(secretB)
	prefixC = identitydom.DisplayPrefix(secretC)

	t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Hour)
	t2 = t0.Add(2 * time.Hour)
	t3 = t0.Add(3 * time.Hour)

	sealedC = domain.Sealed{Subject: userID.String(), KeyVersion: 1, Blob: []byte("0123456789abcdef0123456789abcdef-sealed-C")}
)

// Histories the cases start from.
var (
	created   = identitydom.UserCreated{UserID: userID, Email: "alice@example.com", DisplayName: "Alice", CreatedAt: t0}
	mintedA   = identitydom.APIKeyMinted{UserID: userID, KeyID: keyA, Hash: hashA, Prefix: prefixA, MintedAt: t1}
	revokedA  = identitydom.APIKeyRevoked{UserID: userID, KeyID: keyA, RevokedAt: t2}
	rotatedAB = identitydom.APIKeyRotated{UserID: userID, OldKeyID: keyA, KeyID: keyB, Hash: hashB, Prefix: prefixB, RotatedAt: t2}

	sealedProfile = domain.Sealed{Subject: userID.String(), KeyVersion: 1, Blob: []byte("0123456789abcdef0123456789abcdef-profile")}
	erasedAt3     = identitydom.UserErased{UserID: userID, Pseudonym: "erased-0123abcd", ErasedAt: t3}

	noUser      []domain.Event
	justCreated = []domain.Event{created}
	liveA       = []domain.Event{created, mintedA}
	revokedOnly = []domain.Event{created, mintedA, revokedA}
	liveB       = []domain.Event{created, mintedA, rotatedAB}
)

func fold(history []domain.Event) identitydom.State {
	s := identitydom.Initial()
	for _, ev := range history {
		s = identitydom.Evolve(s, ev)
	}
	return s
}

func TestDecide(t *testing.T) {
	mintC := identitydom.MintAPIKey{KeyID: keyC, Hash: hashC, Prefix: prefixC, At: t3}
	rotateC := identitydom.RotateAPIKey{KeyID: keyC, Hash: hashC, Prefix: prefixC, At: t3}
	with := func(c identitydom.MintAPIKey, f func(*identitydom.MintAPIKey)) identitydom.MintAPIKey {
		f(&c)
		return c
	}
	withR := func(c identitydom.RotateAPIKey, f func(*identitydom.RotateAPIKey)) identitydom.RotateAPIKey {
		f(&c)
		return c
	}

	tests := []struct {
		name    string
		history []domain.Event
		cmd     identitydom.Command
		want    []domain.Event
		code    domain.Code // empty: the command succeeds with want
	}{
		{name: "no command", history: liveA, cmd: nil, code: domain.CodeInvalid},

		// CreateUser
		{
			name:    "create user: email normalised, name trimmed",
			history: noUser,
			cmd:     identitydom.CreateUser{UserID: userID, Email: "  Alice@Example.COM ", DisplayName: "  Alice ", At: t0},
			want:    []domain.Event{created},
		},
		{
			name:    "create user: without a display name",
			history: noUser,
			cmd:     identitydom.CreateUser{UserID: userID, Email: "alice@example.com", At: t0},
			want:    []domain.Event{identitydom.UserCreated{UserID: userID, Email: "alice@example.com", CreatedAt: t0}},
		},
		{
			name:    "create user: time kept in UTC",
			history: noUser,
			cmd:     identitydom.CreateUser{UserID: userID, Email: "alice@example.com", DisplayName: "Alice", At: t0.In(time.FixedZone("CET", 3600))},
			want:    []domain.Event{created},
		},
		{
			name:    "create user: with a sealed profile, nothing in clear",
			history: noUser,
			cmd:     identitydom.CreateUser{UserID: userID, Email: "Alice@Example.com", DisplayName: "Alice", Profile: sealedProfile, At: t0},
			want:    []domain.Event{identitydom.UserCreated{UserID: userID, Profile: sealedProfile, CreatedAt: t0}},
		},
		{
			name:    "create user: a profile sealed for someone else",
			history: noUser,
			cmd:     identitydom.CreateUser{UserID: userID, Email: "alice@example.com", Profile: domain.Sealed{Subject: otherID.String(), KeyVersion: 1, Blob: []byte("x")}, At: t0},
			code:    domain.CodeInvalid,
		},
		{name: "create user: twice", history: justCreated, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com", At: t1}, code: domain.CodeConflict},
		{name: "create user: twice with keys", history: liveB, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com", At: t3}, code: domain.CodeConflict},
		{name: "create user: no user id", history: noUser, cmd: identitydom.CreateUser{Email: "alice@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "create user: empty email", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "  ", At: t0}, code: domain.CodeInvalid},
		{name: "create user: malformed email", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "alice.example.com", At: t0}, code: domain.CodeInvalid},
		{name: "create user: email with a display name", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "Alice <alice@example.com>", At: t0}, code: domain.CodeInvalid},
		{name: "create user: control character in name", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com", DisplayName: "Al\x00ice", At: t0}, code: domain.CodeInvalid},
		{name: "create user: name too long", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com", DisplayName: strings.Repeat("é", identitydom.MaxDisplayNameLen+1), At: t0}, code: domain.CodeInvalid},
		{name: "create user: name not UTF-8", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com", DisplayName: "\xff\xfe", At: t0}, code: domain.CodeInvalid},
		{name: "create user: no time", history: noUser, cmd: identitydom.CreateUser{UserID: userID, Email: "alice@example.com"}, code: domain.CodeInvalid},
		{name: "create user: malformed beats exists", history: justCreated, cmd: identitydom.CreateUser{UserID: userID, Email: "nope", At: t1}, code: domain.CodeInvalid},

		// EraseUser
		{
			name:    "erase: a user with a live key",
			history: liveB,
			cmd:     identitydom.EraseUser{Pseudonym: "erased-0123abcd", At: t3},
			want:    []domain.Event{erasedAt3},
		},
		{name: "erase: twice records nothing more", history: append(slices.Clone(liveB), erasedAt3), cmd: identitydom.EraseUser{Pseudonym: "erased-0123abcd", At: t3}},
		{name: "erase: no such user", history: noUser, cmd: identitydom.EraseUser{Pseudonym: "erased-0123abcd", At: t3}, code: domain.CodeNotFound},
		{name: "erase: not a pseudonym", history: liveB, cmd: identitydom.EraseUser{Pseudonym: "alice@example.com", At: t3}, code: domain.CodeInvalid},
		{name: "erase: no time", history: liveB, cmd: identitydom.EraseUser{Pseudonym: "erased-0123abcd"}, code: domain.CodeInvalid},
		{name: "mint: the user was erased", history: []domain.Event{created, erasedAt3}, cmd: mintC, code: domain.CodeConflict},
		{name: "rotate: the user was erased", history: append(slices.Clone(liveB), erasedAt3), cmd: rotateC, code: domain.CodeConflict},

		// MintAPIKey
		{
			name:    "mint: first key",
			history: justCreated,
			cmd:     identitydom.MintAPIKey{KeyID: keyA, Hash: hashA, Prefix: prefixA, At: t1},
			want:    []domain.Event{mintedA},
		},
		{
			name:    "mint: with the sealed secret",
			history: justCreated,
			cmd:     with(mintC, func(c *identitydom.MintAPIKey) { c.Sealed = sealedC }),
			want:    []domain.Event{identitydom.APIKeyMinted{UserID: userID, KeyID: keyC, Hash: hashC, Prefix: prefixC, Sealed: sealedC, MintedAt: t3}},
		},
		{
			name:    "mint: after the key was revoked",
			history: revokedOnly,
			cmd:     mintC,
			want:    []domain.Event{identitydom.APIKeyMinted{UserID: userID, KeyID: keyC, Hash: hashC, Prefix: prefixC, MintedAt: t3}},
		},
		{name: "mint: no such user", history: noUser, cmd: mintC, code: domain.CodeNotFound},
		{name: "mint: a key is live", history: liveA, cmd: mintC, code: domain.CodeConflict},
		{name: "mint: the rotated key is live", history: liveB, cmd: mintC, code: domain.CodeConflict},
		{name: "mint: key id used before", history: revokedOnly, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.KeyID = keyA }), code: domain.CodeConflict},
		{name: "mint: secret used before", history: revokedOnly, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Hash = hashA }), code: domain.CodeConflict},
		{name: "mint: no key id", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.KeyID = uuid.Nil }), code: domain.CodeInvalid},
		{name: "mint: hash not hex", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Hash = strings.ToUpper(hashC) }), code: domain.CodeInvalid},
		{name: "mint: hash too short", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Hash = hashC[:40] }), code: domain.CodeInvalid},
		{name: "mint: the secret itself as hash", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Hash = secretC }), code: domain.CodeInvalid},
		{name: "mint: prefix without wb_", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Prefix = "abcd…" }), code: domain.CodeInvalid},
		{name: "mint: whole secret as prefix", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.Prefix = secretC }), code: domain.CodeInvalid},
		{name: "mint: sealed for another subject", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) {
			c.Sealed = domain.Sealed{Subject: otherID.String(), Blob: []byte("x")}
		}), code: domain.CodeInvalid},
		{name: "mint: no time", history: justCreated, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.At = time.Time{} }), code: domain.CodeInvalid},
		{name: "mint: malformed beats no such user", history: noUser, cmd: with(mintC, func(c *identitydom.MintAPIKey) { c.KeyID = uuid.Nil }), code: domain.CodeInvalid},

		// RotateAPIKey
		{
			name:    "rotate: the live key",
			history: liveA,
			cmd:     identitydom.RotateAPIKey{KeyID: keyB, Hash: hashB, Prefix: prefixB, At: t2},
			want:    []domain.Event{rotatedAB},
		},
		{
			name:    "rotate: naming the live key",
			history: liveA,
			cmd:     identitydom.RotateAPIKey{OldKeyID: keyA, KeyID: keyB, Hash: hashB, Prefix: prefixB, At: t2},
			want:    []domain.Event{rotatedAB},
		},
		{
			name:    "rotate: a rotated key again, with the sealed secret",
			history: liveB,
			cmd:     withR(rotateC, func(c *identitydom.RotateAPIKey) { c.OldKeyID = keyB; c.Sealed = sealedC }),
			want:    []domain.Event{identitydom.APIKeyRotated{UserID: userID, OldKeyID: keyB, KeyID: keyC, Hash: hashC, Prefix: prefixC, Sealed: sealedC, RotatedAt: t3}},
		},
		{name: "rotate: no such user", history: noUser, cmd: rotateC, code: domain.CodeNotFound},
		{name: "rotate: no key yet", history: justCreated, cmd: rotateC, code: domain.CodeConflict},
		{name: "rotate: the key was revoked", history: revokedOnly, cmd: rotateC, code: domain.CodeConflict},
		{name: "rotate: naming a key that is no longer live", history: liveB, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.OldKeyID = keyA }), code: domain.CodeConflict},
		{name: "rotate: naming an unknown key", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.OldKeyID = otherID }), code: domain.CodeConflict},
		{name: "rotate: new id is the live key's", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.KeyID = keyA }), code: domain.CodeConflict},
		{name: "rotate: new id used before", history: liveB, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.KeyID = keyA }), code: domain.CodeConflict},
		{name: "rotate: same secret", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.Hash = hashA }), code: domain.CodeConflict},
		{name: "rotate: secret of a retired key", history: liveB, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.Hash = hashA }), code: domain.CodeConflict},
		{name: "rotate: no key id", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.KeyID = uuid.Nil }), code: domain.CodeInvalid},
		{name: "rotate: bad hash", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.Hash = "sha256:" + hashC }), code: domain.CodeInvalid},
		{name: "rotate: bad prefix", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.Prefix = "" }), code: domain.CodeInvalid},
		{name: "rotate: sealed for another subject", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.Sealed = domain.Sealed{Subject: "system", Blob: []byte("x")} }), code: domain.CodeInvalid},
		{name: "rotate: no time", history: liveA, cmd: withR(rotateC, func(c *identitydom.RotateAPIKey) { c.At = time.Time{} }), code: domain.CodeInvalid},

		// RevokeAPIKey
		{name: "revoke: the live key", history: liveA, cmd: identitydom.RevokeAPIKey{At: t2}, want: []domain.Event{revokedA}},
		{name: "revoke: the live key by id", history: liveA, cmd: identitydom.RevokeAPIKey{KeyID: keyA, At: t2}, want: []domain.Event{revokedA}},
		{
			name:    "revoke: after a rotation, the new key",
			history: liveB,
			cmd:     identitydom.RevokeAPIKey{At: t3},
			want:    []domain.Event{identitydom.APIKeyRevoked{UserID: userID, KeyID: keyB, RevokedAt: t3}},
		},
		{name: "revoke: no such user", history: noUser, cmd: identitydom.RevokeAPIKey{At: t2}, code: domain.CodeNotFound},
		{name: "revoke: no key ever", history: justCreated, cmd: identitydom.RevokeAPIKey{At: t2}, code: domain.CodeConflict},
		{name: "revoke: already revoked", history: revokedOnly, cmd: identitydom.RevokeAPIKey{At: t3}, code: domain.CodeConflict},
		{name: "revoke: already revoked, by id", history: revokedOnly, cmd: identitydom.RevokeAPIKey{KeyID: keyA, At: t3}, code: domain.CodeConflict},
		{name: "revoke: a rotated-out key", history: liveB, cmd: identitydom.RevokeAPIKey{KeyID: keyA, At: t3}, code: domain.CodeConflict},
		{name: "revoke: unknown key id", history: liveA, cmd: identitydom.RevokeAPIKey{KeyID: keyC, At: t3}, code: domain.CodeNotFound},
		{name: "revoke: no time", history: liveA, cmd: identitydom.RevokeAPIKey{}, code: domain.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fold(tt.history)
			got, err := identitydom.Decide(before, tt.cmd)
			if tt.code != "" {
				var de *domain.Error
				if !errors.As(err, &de) {
					t.Fatalf("Decide = %v, %v; want a *domain.Error with code %s", got, err, tt.code)
				}
				if de.Code != tt.code {
					t.Fatalf("error code = %s (%v), want %s", de.Code, err, tt.code)
				}
				if de.Message == "" {
					t.Errorf("error %v has no message", err)
				}
				if got != nil {
					t.Errorf("refused command emitted %v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			checkInvariants(t, fold(append(append([]domain.Event(nil), tt.history...), got...)))
			if diff := cmp.Diff(before, fold(tt.history)); diff != "" {
				t.Errorf("Decide changed the state it was given (-before +after):\n%s", diff)
			}
		})
	}
}

// checkInvariants checks what every reachable user state must hold.
func checkInvariants(t *testing.T, s identitydom.State) {
	t.Helper()
	if !s.Exists() {
		t.Fatal("the user does not exist after a successful command")
	}
	ids, hashes := map[uuid.UUID]bool{}, map[string]bool{}
	for i, k := range s.Keys {
		if k.Live() && i != len(s.Keys)-1 {
			t.Errorf("key %d of %d is live but not the last", i, len(s.Keys))
		}
		if !k.Live() && k.RetiredAt.IsZero() {
			t.Errorf("retired key %s has no retirement time", k.KeyID)
		}
		if ids[k.KeyID] || hashes[k.Hash] {
			t.Errorf("key %s: id or hash appears twice", k.KeyID)
		}
		ids[k.KeyID], hashes[k.Hash] = true, true
	}
}

func TestStateQueries(t *testing.T) {
	s := fold(liveB)
	live, ok := s.LiveKey()
	if !ok || live.KeyID != keyB || live.MintedAt != t2 {
		t.Fatalf("LiveKey = %+v, %v; want key B minted at %v", live, ok, t2)
	}
	if k, ok := s.Key(keyA); !ok || k.Retired != identitydom.KeyRotated || k.RetiredAt != t2 {
		t.Errorf("Key(A) = %+v, %v; want rotated at %v", k, ok, t2)
	}
	if _, ok := s.Key(keyC); ok {
		t.Error("Key(C) found a key that was never minted")
	}
	if k, ok := s.Authenticate(secretB); !ok || k.KeyID != keyB {
		t.Errorf("Authenticate(B) = %+v, %v; want key B", k, ok)
	}
	for _, secret := range []string{secretA, secretC, "", "wb_"} {
		if _, ok := s.Authenticate(secret); ok {
			t.Errorf("Authenticate(%q) succeeded; only the live key B may", secret)
		}
	}
	if _, ok := fold(revokedOnly).Authenticate(secretA); ok {
		t.Error("a revoked key authenticates")
	}
	if _, ok := fold(revokedOnly).LiveKey(); ok {
		t.Error("a user whose key was revoked has a live key")
	}
}

// Evolve must not let a later event show through a state handed out earlier (the Keys slice).
func TestEvolveDoesNotAlias(t *testing.T) {
	base := fold(liveA)
	snapshot := fold(liveA)
	_ = identitydom.Evolve(base, rotatedAB)
	_ = identitydom.Evolve(base, revokedA)
	if diff := cmp.Diff(snapshot, base); diff != "" {
		t.Fatalf("Evolve changed an earlier state (-want +got):\n%s", diff)
	}
	// Two different futures from one past stay apart.
	short := identitydom.Evolve(fold(justCreated), mintedA)
	a := identitydom.Evolve(short, identitydom.APIKeyRevoked{UserID: userID, KeyID: keyA, RevokedAt: t2})
	b := identitydom.Evolve(short, rotatedAB)
	if a.Keys[0].Retired != identitydom.KeyRevoked || b.Keys[0].Retired != identitydom.KeyRotated || short.Keys[0].Retired != identitydom.KeyLive {
		t.Fatalf("futures share state: short=%v a=%v b=%v", short.Keys[0].Retired, a.Keys[0].Retired, b.Keys[0].Retired)
	}
}

// An erased user keeps its id and the shape of its history, but no email, name or live key.
func TestEraseFoldsAwayPersonalData(t *testing.T) {
	s := fold(append(slices.Clone(liveB), erasedAt3))
	if !s.Erased || s.Email != "erased-0123abcd" || s.DisplayName != "" || s.UserID != userID || len(s.Keys) != 2 {
		t.Fatalf("erased state: %+v", s)
	}
	if _, live := s.LiveKey(); live {
		t.Fatal("an erased user still has a live key")
	}
	if _, ok := s.Authenticate(secretB); ok {
		t.Fatal("an erased user's key still authenticates")
	}
}
