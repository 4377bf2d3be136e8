package jots

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// cookieName is the name of a jot's password cookie. It is scoped to the jot's path, so one name
// serves every jot.
const cookieName = "jot_access"

// passwordTag binds a cookie to the password hash in force when it was issued.
func passwordTag(hash string) string {
	s := sha256.Sum256([]byte(hash))
	return hex.EncodeToString(s[:8])
}

func (h *Handler) mac(payload string) []byte {
	m := hmac.New(sha256.New, h.cookieKey)
	m.Write([]byte("workbench jot cookie v1\n"))
	m.Write([]byte(payload))
	return m.Sum(nil)
}

// signCookie returns the cookie value for jot name, password hash and expiry.
func (h *Handler) signCookie(name, hash string, exp time.Time) string {
	payload := name + "|" + strconv.FormatInt(exp.Unix(), 10) + "|" + passwordTag(hash)
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." + base64.RawURLEncoding.EncodeToString(h.mac(payload))
}

// validCookie reports whether value is an unexpired cookie this server signed for jot name under the
// password hash now in force.
func (h *Handler) validCookie(value, name, hash string, now time.Time) bool {
	p64, m64, ok := strings.Cut(value, ".")
	if !ok {
		return false
	}
	payload, err := base64.RawURLEncoding.DecodeString(p64)
	if err != nil {
		return false
	}
	mac, err := base64.RawURLEncoding.DecodeString(m64)
	if err != nil || !hmac.Equal(mac, h.mac(string(payload))) {
		return false
	}
	parts := strings.Split(string(payload), "|")
	if len(parts) != 3 || parts[0] != name || parts[2] != passwordTag(hash) {
		return false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	return err == nil && now.Unix() < exp
}
