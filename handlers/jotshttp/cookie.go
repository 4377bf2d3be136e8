package jotshttp

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/workbench/workbench/internal/signed"
)

// cookieName is the name of a jot's password cookie. It is scoped to the jot's path, so one name
// serves every jot.
const cookieName = "jot_access"

// The cookie (and the gate token in a gated jot's path, the same value) is an internal/signed token
// under this label, at most maxCookieLen bytes long: far more than a 63-byte jot name needs.
const (
	cookieLabel  = "workbench/jot-cookie/v2"
	maxCookieLen = 512
)

// access is what a jot cookie carries: the jot and the password it was issued under.
type access struct {
	Name string `json:"n"`
	Tag  string `json:"t"`
}

// passwordTag binds a cookie to the password hash in force when it was issued.
func passwordTag(hash string) string {
	s := sha256.Sum256([]byte(hash))
	return hex.EncodeToString(s[:8])
}

func newCookieSealer(key []byte, now func() time.Time) (*signed.Sealer[access], error) {
	return signed.New[access](key, cookieLabel, &signed.Options{MaxLen: maxCookieLen, Now: now})
}

// signCookie returns the cookie value for jot name, password hash and expiry.
func (h *Handler) signCookie(name, hash string, exp time.Time) (string, error) {
	return h.cookies.Seal(access{Name: name, Tag: passwordTag(hash)}, exp)
}

// validCookie reports whether value is an unexpired cookie this server signed for jot name under the
// password hash now in force.
func (h *Handler) validCookie(value, name, hash string) bool {
	a, _, err := h.cookies.Open(value)
	return err == nil && a.Name == name && a.Tag == passwordTag(hash)
}
