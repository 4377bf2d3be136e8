package proxy

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
)

// tokenPrefix marks a curl_session token and its format version. A token is
//
//	wbcs1.<base64url(claims JSON)>.<base64url(HMAC-SHA256(key, "workbench/curl-session/v1\x00" + claims part))>
//
// The claims name the session, the user, the integrations and the expiry. Every replica holds the
// key (derived from the master key), so any of them verifies a token without a read; the log holds
// the mint (curlsession.SessionMinted), never the token.
const (
	tokenPrefix = "wbcs1."
	macLabel    = "workbench/curl-session/v1\x00"
)

// Claims is what a token asserts.
type Claims struct {
	SessionID    uuid.UUID `json:"sid"`
	UserID       uuid.UUID `json:"sub"`
	Integrations []string  `json:"int"`
	ExpiresAt    int64     `json:"exp"` // Unix seconds
}

// Allows reports whether the token is scoped to integration.
func (c Claims) Allows(integration string) bool {
	for _, n := range c.Integrations {
		if n == integration {
			return true
		}
	}
	return false
}

// Token verification failures. Each is answered 401 with its own message.
var (
	ErrTokenMalformed = errors.New("the token is not a curl_session token")
	ErrTokenForged    = errors.New("the token's signature does not verify: it was altered or not issued by this server")
	ErrTokenExpired   = errors.New("the token has expired: call curl_session again (after the user approves)")
)

// signer signs and verifies tokens with one key.
type signer struct{ key []byte }

func (s signer) mac(payload string) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(macLabel))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

func (s signer) sign(c Claims) (string, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	payload := base64.RawURLEncoding.EncodeToString(raw)
	return tokenPrefix + payload + "." + base64.RawURLEncoding.EncodeToString(s.mac(payload)), nil
}

// verify checks the signature before it reads anything of the claims, then the expiry.
func (s signer) verify(token string, now time.Time) (Claims, error) {
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return Claims{}, ErrTokenMalformed
	}
	payload, sig, ok := strings.Cut(rest, ".")
	if !ok || payload == "" || sig == "" {
		return Claims{}, ErrTokenMalformed
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return Claims{}, ErrTokenMalformed
	}
	if !hmac.Equal(got, s.mac(payload)) {
		return Claims{}, ErrTokenForged
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return Claims{}, ErrTokenMalformed
	}
	var c Claims
	if err := json.Unmarshal(raw, &c); err != nil || c.SessionID == uuid.Nil || c.UserID == uuid.Nil || len(c.Integrations) == 0 {
		return Claims{}, ErrTokenMalformed
	}
	if now.Unix() >= c.ExpiresAt {
		return Claims{}, ErrTokenExpired
	}
	return c, nil
}
