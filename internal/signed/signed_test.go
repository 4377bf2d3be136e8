package signed_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/internal/signed"
)

type claim struct {
	User   string   `json:"u"`
	Scopes []string `json:"s,omitempty"`
}

var (
	secret = bytes.Repeat([]byte("s"), 32)
	t0     = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
)

func sealer(t testing.TB, label string, maxLen int, now *time.Time) *signed.Sealer[claim] {
	t.Helper()
	s, err := signed.New[claim](secret, label, &signed.Options{MaxLen: maxLen, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	now := t0
	s := sealer(t, "test/claim/v1", 0, &now)
	in := claim{User: "ada", Scopes: []string{"a", "b"}}
	exp := t0.Add(time.Hour)
	tok, err := s.Seal(in, exp)
	if err != nil {
		t.Fatal(err)
	}
	got, gotExp, err := s.Open(tok)
	if err != nil || got.User != in.User || len(got.Scopes) != 2 || !gotExp.Equal(exp) {
		t.Fatalf("Open = %+v, %s, %v", got, gotExp, err)
	}
	// Sealing is deterministic: the same value and expiry give the same token.
	if again, _ := s.Seal(in, exp); again != tok {
		t.Fatalf("two seals differ: %q, %q", tok, again)
	}
}

// Every refusal, and which error names it.
func TestOpenRefuses(t *testing.T) {
	now := t0
	s := sealer(t, "test/claim/v1", 256, &now)
	tok, err := s.Seal(claim{User: "ada"}, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	body, sig, _ := strings.Cut(tok, ".")
	raw, _ := base64.RawURLEncoding.DecodeString(body)
	macRaw, _ := base64.RawURLEncoding.DecodeString(sig)

	// The payload altered (another user), the MAC kept.
	tamperedPayload := base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte(`"ada"`), []byte(`"eve"`), 1)) + "." + sig
	// The expiry pushed out, the MAC kept.
	longer := base64.RawURLEncoding.EncodeToString(bytes.Replace(raw, []byte(`"x":`), []byte(`"x":9`), 1)) + "." + sig
	// One bit of the MAC flipped, re-encoded canonically.
	flipped := append([]byte(nil), macRaw...)
	flipped[0] ^= 1
	tamperedMAC := body + "." + base64.RawURLEncoding.EncodeToString(flipped)
	// The same MAC bytes in a non-canonical encoding (non-zero trailing bits of the last character).
	// 32 bytes take 43 characters, whose last two bits are padding; setting one still decodes to the
	// same bytes under a lenient decoder.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	nonCanonical := body + "." + sig[:len(sig)-1] + string(alphabet[strings.IndexByte(alphabet, sig[len(sig)-1])|1])
	if lenient, err := base64.RawURLEncoding.DecodeString(nonCanonical[len(body)+1:]); err != nil || !bytes.Equal(lenient, macRaw) {
		t.Fatalf("the non-canonical MAC does not decode leniently to the same bytes: %v", err)
	}

	// A token of another kind under the same secret.
	other, err := sealer(t, "test/other/v1", 256, &now).Seal(claim{User: "ada"}, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	// The same kind under another secret.
	foreign, err := signed.New[claim](bytes.Repeat([]byte("x"), 32), "test/claim/v1", nil)
	if err != nil {
		t.Fatal(err)
	}
	foreignTok, _ := foreign.Seal(claim{User: "ada"}, t0.Add(time.Hour))
	// A genuine token over the cap: minted by a Sealer of the same key with a larger cap.
	big := sealer(t, "test/claim/v1", 4096, &now)
	long, err := big.Seal(claim{User: strings.Repeat("a", 300)}, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := big.Open(long); err != nil {
		t.Fatalf("the long token is not genuine: %v", err)
	}

	for _, tc := range []struct {
		name, token string
		want        error
	}{
		{"empty", "", signed.ErrMalformed},
		{"no MAC part", body, signed.ErrMalformed},
		{"empty MAC part", body + ".", signed.ErrMalformed},
		{"empty body", "." + sig, signed.ErrMalformed},
		{"truncated MAC", tok[:len(tok)-1], signed.ErrMalformed},
		{"truncated in the body", tok[:len(body)/2], signed.ErrMalformed},
		{"MAC bytes cut short", body + "." + base64.RawURLEncoding.EncodeToString(macRaw[:16]), signed.ErrMalformed},
		{"a third part", tok + ".x", signed.ErrMalformed},
		{"a line break in the MAC", body + "." + sig[:3] + "\r\n" + sig[3:], signed.ErrMalformed},
		{"a space before", " " + tok, signed.ErrMalformed},
		{"padded MAC", body + "." + base64.URLEncoding.EncodeToString(macRaw), signed.ErrMalformed},
		{"non-canonical MAC encoding", nonCanonical, signed.ErrMalformed},
		{"over the length cap, though genuine", long, signed.ErrMalformed},
		{"tampered payload", tamperedPayload, signed.ErrForged},
		{"tampered expiry", longer, signed.ErrForged},
		{"tampered MAC", tamperedMAC, signed.ErrForged},
		{"wrong label", other, signed.ErrForged},
		{"wrong secret", foreignTok, signed.ErrForged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := s.Open(tc.token)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
			if got.User != "" {
				t.Fatalf("a refused token yielded a payload: %+v", got)
			}
		})
	}
}

// A token is good until its expiry second and expired from it on; the expired payload is returned
// with ErrExpired.
func TestExpiry(t *testing.T) {
	now := t0
	s := sealer(t, "test/claim/v1", 0, &now)
	exp := t0.Add(10 * time.Minute)
	tok, err := s.Seal(claim{User: "ada"}, exp)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at   time.Time
		want error
	}{
		{t0, nil},
		{exp.Add(-time.Nanosecond), nil},
		{exp, signed.ErrExpired},
		{exp.Add(time.Hour), signed.ErrExpired},
	} {
		now = tc.at
		got, gotExp, err := s.Open(tok)
		if !errors.Is(err, tc.want) {
			t.Errorf("at expiry%+v: %v, want %v", tc.at.Sub(exp), err, tc.want)
		}
		if got.User != "ada" || !gotExp.Equal(exp) {
			t.Errorf("at expiry%+v: payload %+v, expiry %s", tc.at.Sub(exp), got, gotExp)
		}
	}
}

func TestSealRefusesATokenOverTheCap(t *testing.T) {
	now := t0
	s := sealer(t, "test/claim/v1", 128, &now)
	if _, err := s.Seal(claim{User: strings.Repeat("a", 200)}, t0.Add(time.Hour)); err == nil {
		t.Fatal("a token over the cap was minted")
	}
}

func TestNewAndDeriveKeyCheckTheirInput(t *testing.T) {
	if _, err := signed.New[claim](secret[:31], "l", nil); err == nil {
		t.Error("a 31-byte secret is accepted")
	}
	if _, err := signed.New[claim](secret, "", nil); err == nil {
		t.Error("an empty label is accepted")
	}
	if _, err := signed.New[claim](secret, "l", &signed.Options{MaxLen: -1}); err == nil {
		t.Error("a negative cap is accepted")
	}
	a, err := signed.DeriveKey(secret, "a")
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := signed.DeriveKey(secret, "a")
	b, _ := signed.DeriveKey(secret, "b")
	if len(a) != 32 || !bytes.Equal(a, a2) || bytes.Equal(a, b) {
		t.Fatalf("keys: a %x, a again %x, b %x", a, a2, b)
	}
}

// DeriveKey is HKDF-SHA256 (RFC 5869 section 2) with no salt and the label as info, computed here by
// hand: extract with a zero salt of hash length, then the first expand block.
func TestDeriveKeyIsHKDF(t *testing.T) {
	ikm := bytes.Repeat([]byte{0x0b}, 40)
	ext := hmac.New(sha256.New, make([]byte, sha256.Size))
	ext.Write(ikm)
	prk := ext.Sum(nil)
	exp := hmac.New(sha256.New, prk)
	exp.Write([]byte("workbench/test/v1"))
	exp.Write([]byte{1})
	want := exp.Sum(nil)
	got, err := signed.DeriveKey(ikm, "workbench/test/v1")
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("DeriveKey = %x, %v; want %x", got, err, want)
	}
}

func FuzzOpen(f *testing.F) {
	now := t0
	s := sealer(f, "test/claim/v1", 512, &now)
	tok, err := s.Seal(claim{User: "ada", Scopes: []string{"x"}}, t0.Add(time.Hour))
	if err != nil {
		f.Fatal(err)
	}
	expired, _ := s.Seal(claim{User: "bob"}, t0.Add(-time.Hour))
	for _, seed := range []string{"", ".", tok, expired, tok + "x", tok[:len(tok)-2], "a.b", strings.Repeat("A", 600)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, token string) {
		got, exp, err := s.Open(token)
		if err != nil && !errors.Is(err, signed.ErrMalformed) && !errors.Is(err, signed.ErrForged) && !errors.Is(err, signed.ErrExpired) {
			t.Fatalf("unexpected error %v", err)
		}
		if err == nil || errors.Is(err, signed.ErrExpired) {
			// Whatever opens was minted by this Sealer: sealing it again gives the very same string.
			again, serr := s.Seal(got, exp)
			if serr != nil || again != token {
				t.Fatalf("%q opened (%v) but reseals as %q (%v)", token, err, again, serr)
			}
		}
	})
}
