package connections

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

// LinkTTL is how long a claim link, and so its connect attempt, lives. It has to cover the whole
// handshake: the user opening the link, signing in to the portal if needed, consenting at the
// provider, and the callback's code exchange, since connection.Connect refuses an attempt past its
// expiry. Ten minutes is the usual lifetime of an authorization code grant's consent (RFC 6749
// section 4.1.2 recommends codes live at most ten minutes) and keeps a leaked link short-lived.
const LinkTTL = 10 * time.Minute

// claim is what a claim link's token names. It carries no PKCE verifier and no provider URL: it is a
// claim, not a capability (spec, Connecting an integration).
type claim struct {
	Attempt     uuid.UUID `json:"a"`
	User        uuid.UUID `json:"u"`
	Integration string    `json:"i"`
	Expires     int64     `json:"e"` // unix seconds
}

// Link errors, reported to the person who opened the link.
var (
	errLinkInvalid = errors.New("this connect link is not valid")
	errLinkExpired = errors.New("this connect link has expired")
)

func (s *Service) signLink(body string) string {
	mac := hmac.New(sha256.New, s.linkKey)
	mac.Write([]byte("workbench-connect-link:v1:"))
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (s *Service) mintLink(c claim) (string, error) {
	raw, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	body := base64.RawURLEncoding.EncodeToString(raw)
	return body + "." + s.signLink(body), nil
}

// readLink verifies a token's signature and expiry.
func (s *Service) readLink(token string, now time.Time) (claim, error) {
	body, sig, ok := strings.Cut(strings.TrimSpace(token), ".")
	if !ok || len(token) > 1024 || !hmac.Equal([]byte(sig), []byte(s.signLink(body))) {
		return claim{}, errLinkInvalid
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return claim{}, errLinkInvalid
	}
	var c claim
	if json.Unmarshal(raw, &c) != nil || c.Attempt == uuid.Nil || c.User == uuid.Nil || c.Integration == "" {
		return claim{}, errLinkInvalid
	}
	if now.Unix() >= c.Expires {
		return c, errLinkExpired
	}
	return c, nil
}
