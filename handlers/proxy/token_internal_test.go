package proxy

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/signed"
)

// verify refuses a token over maxTokenLen before decoding it, even one genuinely signed, and a MAC
// spelled in a non-canonical encoding (a token has one spelling).
func TestVerifyRefusesOverLongAndNonCanonicalTokens(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	key := []byte(strings.Repeat("k", 32))
	s, err := newSigner(key, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	c := Claims{SessionID: uuid.New(), UserID: uuid.New(), Integrations: []string{"keyed"}, ExpiresAt: now.Add(time.Minute).Unix()}
	tok, err := s.sign(c)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.verify(tok); err != nil || got.UserID != c.UserID || got.ExpiresAt != c.ExpiresAt {
		t.Fatalf("genuine token: %+v, %v", got, err)
	}

	// Genuine signatures on claims padded with a field Claims does not have, under and over the cap.
	type padded struct {
		Claims
		Pad string `json:"pad"`
	}
	big, err := signed.New[padded](key, tokenLabel, &signed.Options{MaxLen: 4 * maxTokenLen})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pad  int
		want error
	}{{100, nil}, {maxTokenLen, ErrTokenMalformed}} {
		raw, err := big.Seal(padded{Claims: c, Pad: strings.Repeat("p", tc.pad)}, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.verify(tokenPrefix + raw); !errors.Is(err, tc.want) && !(err == nil && tc.want == nil) {
			t.Fatalf("token of %d bytes: %v, want %v", len(tokenPrefix)+len(raw), err, tc.want)
		}
	}

	// The MAC's 43rd character carries two padding bits; setting one leaves a lenient decoder's
	// bytes unchanged.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	respelled := tok[:len(tok)-1] + string(alphabet[strings.IndexByte(alphabet, tok[len(tok)-1])|1])
	if _, err := s.verify(respelled); !errors.Is(err, ErrTokenMalformed) {
		t.Fatalf("non-canonical MAC: %v", err)
	}
	now = now.Add(time.Minute)
	if _, err := s.verify(tok); !errors.Is(err, ErrTokenExpired) {
		t.Fatalf("at expiry: %v", err)
	}
}
