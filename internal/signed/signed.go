package signed

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// MinSecretLen is the shortest secret New and DeriveKey accept.
const MinSecretLen = 32

// DefaultMaxLen is the length cap of a Sealer whose Options leave MaxLen zero.
const DefaultMaxLen = 1024

// keyLen is the length of a derived key: SHA-256's output, the HMAC's natural key size.
const keyLen = sha256.Size

// Why Open refused a token.
var (
	// ErrMalformed: not a token of this format (over the length cap, wrong shape, bad encoding).
	ErrMalformed = errors.New("signed: malformed token")
	// ErrForged: well formed, but the MAC does not verify under this Sealer's key: altered, minted
	// for another label, or under another secret.
	ErrForged = errors.New("signed: the token's signature does not verify")
	// ErrExpired: genuine, but past its expiry. Open returns the payload alongside.
	ErrExpired = errors.New("signed: the token has expired")
)

// b64 is unpadded base64url that refuses non-canonical encodings (non-zero trailing bits), so that
// no two strings open to the same token.
var b64 = base64.RawURLEncoding.Strict()

// DeriveKey derives a 32-byte key for label from secret with HKDF-SHA256 (RFC 5869), label as the
// info string and no salt. The same secret and label always give the same key, so every replica
// holding the secret derives it without another setting.
func DeriveKey(secret []byte, label string) ([]byte, error) {
	if len(secret) < MinSecretLen {
		return nil, fmt.Errorf("signed: the secret must be at least %d bytes", MinSecretLen)
	}
	if label == "" {
		return nil, errors.New("signed: a key needs a label")
	}
	return hkdf.Key(sha256.New, secret, nil, label, keyLen)
}

// Options tune a Sealer; nil means defaults.
type Options struct {
	// MaxLen caps a token's length in bytes, checked before anything is decoded (default
	// DefaultMaxLen). Seal refuses a value whose token would be longer.
	MaxLen int
	// Now is the clock expiry is checked against (default time.Now).
	Now func() time.Time
}

// Sealer seals and opens tokens carrying a T (any value encoding/json round-trips) under one key.
// It is safe for concurrent use.
type Sealer[T any] struct {
	key    []byte
	maxLen int
	now    func() time.Time
}

// envelope is what a token's first part encodes.
type envelope[T any] struct {
	Payload T     `json:"p"`
	Expires int64 `json:"x"`
}

// New returns a Sealer whose key is derived from secret (at least MinSecretLen bytes) for label.
func New[T any](secret []byte, label string, opts *Options) (*Sealer[T], error) {
	key, err := DeriveKey(secret, label)
	if err != nil {
		return nil, err
	}
	s := &Sealer[T]{key: key, maxLen: DefaultMaxLen, now: time.Now}
	if opts != nil {
		if opts.MaxLen < 0 {
			return nil, errors.New("signed: MaxLen must not be negative")
		}
		if opts.MaxLen > 0 {
			s.maxLen = opts.MaxLen
		}
		if opts.Now != nil {
			s.now = opts.Now
		}
	}
	return s, nil
}

func (s *Sealer[T]) mac(body string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// Seal returns a token carrying v that Open accepts until expires (at second resolution: the token
// is expired from expires' second on).
func (s *Sealer[T]) Seal(v T, expires time.Time) (string, error) {
	raw, err := json.Marshal(envelope[T]{Expires: expires.Unix(), Payload: v})
	if err != nil {
		return "", fmt.Errorf("signed: encode: %w", err)
	}
	body := b64.EncodeToString(raw)
	tok := body + "." + b64.EncodeToString(s.mac(body))
	if len(tok) > s.maxLen {
		return "", fmt.Errorf("signed: the token would be %d bytes, over the cap of %d", len(tok), s.maxLen)
	}
	return tok, nil
}

// Open verifies token and returns its payload and expiry. See the package doc for the order of the
// checks; on ErrExpired the payload and expiry are returned too.
func (s *Sealer[T]) Open(token string) (T, time.Time, error) {
	var zero T
	if token == "" || len(token) > s.maxLen {
		return zero, time.Time{}, ErrMalformed
	}
	// encoding/base64 skips '\r' and '\n' while decoding; only the alphabet and the one separator
	// may appear, so that one token has one spelling.
	for i := 0; i < len(token); i++ {
		if c := token[i]; !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return zero, time.Time{}, ErrMalformed
		}
	}
	body, sig, ok := strings.Cut(token, ".")
	if !ok || body == "" {
		return zero, time.Time{}, ErrMalformed
	}
	got, err := b64.DecodeString(sig)
	if err != nil || len(got) != keyLen {
		return zero, time.Time{}, ErrMalformed
	}
	if !hmac.Equal(got, s.mac(body)) {
		return zero, time.Time{}, ErrForged
	}
	raw, err := b64.DecodeString(body)
	if err != nil {
		return zero, time.Time{}, ErrMalformed
	}
	var env envelope[T]
	if err := json.Unmarshal(raw, &env); err != nil {
		return zero, time.Time{}, ErrMalformed
	}
	exp := time.Unix(env.Expires, 0).UTC()
	if s.now().Unix() >= env.Expires {
		return env.Payload, exp, ErrExpired
	}
	return env.Payload, exp, nil
}
