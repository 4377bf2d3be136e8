package connections

import (
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/internal/signed"
)

// LinkTTL is how long a claim link, and so its connect attempt, lives. It has to cover the whole
// handshake: the user opening the link, signing in to the portal if needed, consenting at the
// provider, and the callback's code exchange, since connection.Connect refuses an attempt past its
// expiry. Ten minutes is the usual lifetime of an authorization code grant's consent (RFC 6749
// section 4.1.2 recommends codes live at most ten minutes) and keeps a leaked link short-lived.
const LinkTTL = 10 * time.Minute

// A claim link's token is an internal/signed token under this label, at most maxLinkLen bytes long.
const (
	linkLabel  = "workbench/connect-link/v2"
	maxLinkLen = 1024
)

// claim is what a claim link's token names; its expiry is the token's own. It carries no PKCE
// verifier and no provider URL: it is a claim, not a capability (spec, Connecting an integration).
type claim struct {
	Attempt     uuid.UUID `json:"a"`
	User        uuid.UUID `json:"u"`
	Integration string    `json:"i"`
	// Account is the label of the account the attempt connects; empty for the default label (and in
	// every link minted before accounts existed).
	Account string `json:"c,omitempty"`
}

// linkAccount is the label a claim carries: empty for connection.DefaultAccount.
func linkAccount(label string) string {
	if label == connection.DefaultAccount {
		return ""
	}
	return label
}

// Link errors, reported to the person who opened the link.
var (
	errLinkInvalid = errors.New("this connect link is not valid")
	errLinkExpired = errors.New("this connect link has expired")
)

func (s *Service) mintLink(c claim, expires time.Time) (string, error) {
	return s.links.Seal(c, expires)
}

// readLink verifies a token's signature and expiry (by the service's clock). An expired link's claim
// is returned with errLinkExpired.
func (s *Service) readLink(token string) (claim, error) {
	c, _, err := s.links.Open(strings.TrimSpace(token))
	switch {
	case errors.Is(err, signed.ErrExpired):
		if c.Attempt == uuid.Nil || c.User == uuid.Nil || c.Integration == "" {
			return claim{}, errLinkInvalid
		}
		return c, errLinkExpired
	case err != nil || c.Attempt == uuid.Nil || c.User == uuid.Nil || c.Integration == "":
		return claim{}, errLinkInvalid
	}
	return c, nil
}
