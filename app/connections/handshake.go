package connections

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
)

// randomToken returns 32 bytes from crypto/rand, base64url without padding: 43 characters, which is
// a valid PKCE code verifier (RFC 7636 section 4.1: 43 to 128 unreserved characters) and an
// unguessable OAuth state (RFC 6749 section 10.10).
func randomToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("crypto/rand: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// S256 is the PKCE code challenge of a verifier: BASE64URL(SHA256(ASCII(verifier))) (RFC 7636
// section 4.2).
func S256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// stateHash names a handshake stream; the state itself is never stored.
func stateHash(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// startHandshake makes the verifier and state, records them (the verifier sealed) and builds the
// provider's authorization URL (RFC 6749 section 4.1.1 with RFC 7636 section 4.3).
func (s *Service) startHandshake(ctx context.Context, in *plugins.Integration, user uuid.UUID, account string, a connection.Attempt, now time.Time) (string, error) {
	o := in.Auth.OAuth2
	clientID, _, err := s.clientCredentials(ctx, in.Name)
	if err != nil {
		return "", err
	}
	verifier, err := randomToken()
	if err != nil {
		return "", err
	}
	state, err := randomToken()
	if err != nil {
		return "", err
	}
	sealed, err := s.vault.Seal(ctx, user.String(), verifierPurpose(in.Name), []byte(verifier))
	if err != nil {
		return "", fmt.Errorf("seal the PKCE verifier: %w", err)
	}
	hash := stateHash(state)
	redirect := s.RedirectURI(in.Name)
	if err := s.executeHandshake(ctx, hash, user, connection.StartHandshake{
		StateHash: hash, AttemptID: a.ID, UserID: user, Integration: in.Name, Account: account, Verifier: sealed,
		RedirectURI: redirect, At: now, ExpiresAt: a.ExpiresAt,
	}); err != nil {
		return "", fmt.Errorf("record the OAuth handshake: %w", err)
	}

	u, err := url.Parse(o.AuthorizeURL)
	if err != nil {
		return "", fmt.Errorf("%s authorize URL: %w", in.Name, err)
	}
	q := u.Query()
	for k, v := range o.AuthorizeParams {
		q.Set(k, v)
	}
	sep := o.ScopeSeparator
	if sep == "" {
		sep = " "
	}
	q.Set("response_type", "code")
	q.Set("client_id", clientID)
	q.Set("redirect_uri", redirect)
	if len(o.Scopes) > 0 {
		q.Set("scope", strings.Join(o.Scopes, sep))
	}
	q.Set("state", state)
	q.Set("code_challenge", S256(verifier))
	q.Set("code_challenge_method", "S256")
	u.RawQuery = q.Encode()
	return u.String(), nil
}
