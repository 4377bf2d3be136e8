package proxy

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/signed"
)

// tokenPrefix marks a curl_session token; what follows it is an internal/signed token under
// tokenLabel, the whole at most maxTokenLen bytes. The claims name the session, the user and the
// integrations; the expiry is the signed token's own. Every replica holds the key (derived from the
// master key), so any of them verifies a token without a read; the log holds the mint
// (curlsession.SessionMinted), never the token.
const (
	tokenPrefix = "wbcs1."
	tokenLabel  = "workbench/curl-session/v2"
	// maxTokenLen leaves room for a session naming every integration of a large catalog.
	maxTokenLen = 8192
)

// Claims is what a token asserts.
type Claims struct {
	SessionID    uuid.UUID `json:"sid"`
	UserID       uuid.UUID `json:"sub"`
	Integrations []string  `json:"int"`
	// Account is the label of the account whose credentials the session uses for every integration
	// it names; empty for the user's default account of each.
	Account   string `json:"acc,omitempty"`
	ExpiresAt int64  `json:"-"` // Unix seconds; carried as the signed token's expiry
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

// signer signs and verifies tokens.
type signer struct{ tokens *signed.Sealer[Claims] }

func newSigner(key []byte, now func() time.Time) (signer, error) {
	t, err := signed.New[Claims](key, tokenLabel, &signed.Options{MaxLen: maxTokenLen - len(tokenPrefix), Now: now})
	return signer{tokens: t}, err
}

func (s signer) sign(c Claims) (string, error) {
	tok, err := s.tokens.Seal(c, time.Unix(c.ExpiresAt, 0))
	if err != nil {
		return "", err
	}
	return tokenPrefix + tok, nil
}

// verify checks the length and the signature before it reads anything of the claims, then the
// expiry (internal/signed).
func (s signer) verify(token string) (Claims, error) {
	if len(token) > maxTokenLen {
		return Claims{}, ErrTokenMalformed
	}
	rest, ok := strings.CutPrefix(token, tokenPrefix)
	if !ok {
		return Claims{}, ErrTokenMalformed
	}
	c, exp, err := s.tokens.Open(rest)
	switch {
	case errors.Is(err, signed.ErrForged):
		return Claims{}, ErrTokenForged
	case errors.Is(err, signed.ErrExpired):
		return Claims{}, ErrTokenExpired
	case err != nil || c.SessionID == uuid.Nil || c.UserID == uuid.Nil || len(c.Integrations) == 0:
		return Claims{}, ErrTokenMalformed
	}
	c.ExpiresAt = exp.Unix()
	return c, nil
}

// verifiedTokens remembers the tokens whose signature checked out, with their claims, so that the
// requests of one curl session do not verify its token again; a token is answered from here only
// until it expires, exactly as long as its signature would make it valid (a token is not revoked
// earlier).
type verifiedTokens struct {
	mu     sync.Mutex
	tokens map[string]Claims
}

// maxVerifiedTokens bounds verifiedTokens; when full it starts over.
const maxVerifiedTokens = 10000

// get returns the claims of a token verified before that has not expired at now (Unix seconds).
func (v *verifiedTokens) get(token string, now int64) (Claims, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c, ok := v.tokens[token]
	if ok && now >= c.ExpiresAt {
		delete(v.tokens, token)
		return Claims{}, false
	}
	return c, ok
}

func (v *verifiedTokens) put(token string, c Claims) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.tokens == nil || len(v.tokens) >= maxVerifiedTokens {
		v.tokens = make(map[string]Claims)
	}
	v.tokens[token] = c
}
