package proxy

import (
	"errors"

	"github.com/workbench/workbench/app/curlsessions"
)

// Issuer issues curl_session tokens for app/curlsessions in the format, and under the key, the
// Proxy verifies them with. Give it the Key of Options.
type Issuer struct{ s signer }

var _ curlsessions.Tokens = Issuer{}

// NewIssuer returns an Issuer signing under key (at least 32 bytes).
func NewIssuer(key []byte) (Issuer, error) {
	if len(key) < 32 {
		return Issuer{}, errors.New("proxy: the token key must be at least 32 bytes")
	}
	s, err := newSigner(key, nil)
	if err != nil {
		return Issuer{}, err
	}
	return Issuer{s: s}, nil
}

// Issue implements curlsessions.Tokens.
func (i Issuer) Issue(g curlsessions.Grant) (string, error) {
	return i.s.sign(Claims{SessionID: g.SessionID, UserID: g.UserID, Integrations: g.Integrations, Account: g.Account, ExpiresAt: g.ExpiresAt.Unix()})
}
