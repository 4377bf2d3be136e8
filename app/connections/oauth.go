package connections

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
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
func (s *Service) startHandshake(ctx context.Context, in *plugins.Integration, user uuid.UUID, a connection.Attempt, now time.Time) (string, error) {
	o := in.Auth.OAuth2
	clientID, _, err := s.clientCredentials(in.Name)
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
	if _, err := eventstore.Execute(ctx, s.store, connection.HandshakeStreamName(hash), s.handshake,
		connection.HandshakeCommand(connection.StartHandshake{
			StateHash: hash, AttemptID: a.ID, UserID: user, Integration: in.Name, Verifier: sealed,
			RedirectURI: redirect, At: now, ExpiresAt: a.ExpiresAt,
		}), s.md(user)); err != nil {
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

// Callback errors, each a reason the portal can show (CallbackReason).
var (
	// ErrUnknownState: no handshake has this state (forged, or from another server).
	ErrUnknownState = errors.New("unknown OAuth state")
	// ErrStateUsed: the state's callback already arrived once (a replay).
	ErrStateUsed = connection.ErrHandshakeUsed
	// ErrHandshakeExpired: the attempt expired, or was superseded, before the callback completed it.
	ErrHandshakeExpired = connection.ErrHandshakeExpired
	// ErrProviderDenied: the provider redirected back with an error (the user denied consent, ...).
	ErrProviderDenied = errors.New("the provider did not grant access")
	// ErrExchangeFailed: the token endpoint refused the code or answered something unusable.
	ErrExchangeFailed = errors.New("the code exchange failed")
	// ErrNotSignedIn: the browser that came back carries no portal session.
	ErrNotSignedIn = errors.New("not signed in to the portal")
)

// CallbackReason is the short reason the callback redirect names for err.
func CallbackReason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrUnknownState):
		return "invalid_state"
	case errors.Is(err, ErrStateUsed):
		return "state_used"
	case errors.Is(err, ErrHandshakeExpired):
		return "expired"
	case errors.Is(err, ErrProviderDenied):
		return "access_denied"
	case errors.Is(err, ErrAccountMismatch):
		return "account_mismatch"
	case errors.Is(err, ErrNotSignedIn):
		return "not_signed_in"
	case errors.Is(err, ErrExchangeFailed):
		return "exchange_failed"
	}
	return "error"
}

// Callback completes a handshake from the provider's redirect to
// <SERVER_PUBLIC_URL>/api/auth/plugin/<integration>/callback (RFC 6749 section 4.1.2): it finds the
// handshake by its state, records that the state was used (once only), exchanges the code with the
// verifier (RFC 7636 section 4.5), runs the manifest's post-consent lookup with the new token (its
// values are stored in the Document's Extra), seals the credential and records the connection. sessionUser is the
// portal user of the browser that came back (uuid.Nil when none): the state is bound to that user
// (RFC 6749 section 10.12). It returns the attempt it completed. On any error nothing is stored but
// the fact that the state was used.
func (s *Service) Callback(ctx context.Context, sessionUser uuid.UUID, integration string, q url.Values) (uuid.UUID, error) {
	state := q.Get("state")
	if state == "" || len(state) > 512 {
		return uuid.Nil, &domain.Error{Code: domain.CodeInvalid, Message: "the provider's redirect carries no state", Err: ErrUnknownState}
	}
	hash := stateHash(state)
	stream := connection.HandshakeStreamName(hash)
	h, _, err := eventstore.LoadState(ctx, s.store, stream, s.handshake)
	if err != nil {
		return uuid.Nil, fmt.Errorf("load OAuth handshake: %w", err)
	}
	if !h.Exists() || h.Integration != integration {
		return uuid.Nil, &domain.Error{Code: domain.CodeNotFound, Message: "this sign-in answer matches no connect request; start again from the connect link", Err: ErrUnknownState}
	}
	switch {
	case sessionUser == uuid.Nil:
		return h.AttemptID, &domain.Error{Code: domain.CodeUnauthenticated, Message: "sign in to the workbench portal in this browser, then open the connect link again", Err: ErrNotSignedIn}
	case sessionUser != h.UserID:
		return h.AttemptID, &domain.Error{Code: domain.CodeForbidden, Message: "this sign-in answer belongs to another workbench account", Err: ErrAccountMismatch}
	}
	providerErr := cleanCode(q.Get("error"))
	if q.Get("error") != "" && providerErr == "" {
		providerErr = "invalid_error"
	}
	now := s.clock()
	if _, err := eventstore.Execute(ctx, s.store, stream, s.handshake,
		connection.HandshakeCommand(connection.ReceiveCallback{ProviderError: providerErr, At: now}), s.md(h.UserID)); err != nil {
		return h.AttemptID, fmt.Errorf("OAuth callback: %w", err)
	}
	if providerErr != "" {
		return h.AttemptID, &domain.Error{Code: domain.CodeForbidden, Message: fmt.Sprintf("%s did not grant access (%s)", integration, providerErr), Err: ErrProviderDenied}
	}
	if st, _, err := s.loadConnection(ctx, h.UserID, integration); err != nil {
		return h.AttemptID, err
	} else if a := st.Attempt; a.ID != h.AttemptID || !a.Pending() || a.ExpiredBy(now) {
		return h.AttemptID, &domain.Error{Code: domain.CodeConflict, Message: "the connect link expired or was replaced before the sign-in finished; ask for a new one", Err: ErrHandshakeExpired}
	}
	code := q.Get("code")
	if code == "" || len(code) > 4096 {
		return h.AttemptID, &domain.Error{Code: domain.CodeInvalid, Message: "the provider's redirect carries no code", Err: ErrExchangeFailed}
	}
	in, err := s.integration(integration)
	if err != nil {
		return h.AttemptID, err
	}
	if in.Auth.Mode != plugins.AuthOAuth2 || in.Auth.OAuth2 == nil {
		return h.AttemptID, domain.Errorf(domain.CodeInternal, "%s no longer uses OAuth", in.Name)
	}
	rawVerifier, err := s.vault.Open(ctx, h.Verifier, verifierPurpose(in.Name))
	if err != nil || h.Verifier.Subject != h.UserID.String() {
		return h.AttemptID, fmt.Errorf("open the PKCE verifier: %w", errors.Join(err, errors.New("verifier unusable")))
	}
	tr, err := s.tokenRequest(ctx, in, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {h.RedirectURI},
		"code_verifier": {string(rawVerifier)},
	})
	if err != nil {
		return h.AttemptID, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s refused the sign-in: %s", in.Name, domain.ErrorMessage(err)), Err: errors.Join(ErrExchangeFailed, err)}
	}
	now = s.clock()
	doc := tr.document(now)
	src := source(in, doc)
	injected := doc.token(src)
	extra, err := s.postConsent(ctx, in, injected.AccessToken)
	if err != nil {
		return h.AttemptID, &domain.Error{Code: domain.ErrorCode(err), Message: domain.ErrorMessage(err), Err: errors.Join(ErrExchangeFailed, err)}
	}
	for k, v := range extra {
		if doc.Extra == nil {
			doc.Extra = map[string]json.RawMessage{}
		}
		doc.Extra[k] = v
	}
	sealed, err := s.sealDocument(ctx, h.UserID, in.Name, doc)
	if err != nil {
		return h.AttemptID, err
	}
	if _, err := s.execute(ctx, h.UserID, in.Name, connection.Connect{
		AttemptID: h.AttemptID, UserID: h.UserID, Integration: in.Name, AuthMode: connection.AuthOAuth2,
		Credential: sealed, ExpiresAt: injected.ExpiresAt, Scopes: tr.token(src).scopes(in.Auth.OAuth2.ScopeSeparator), At: now,
	}); err != nil {
		if domain.ErrorCode(err) == domain.CodeConflict {
			return h.AttemptID, &domain.Error{Code: domain.CodeConflict, Message: "the connect link expired or was replaced before the sign-in finished; ask for a new one", Err: errors.Join(ErrHandshakeExpired, err)}
		}
		return h.AttemptID, fmt.Errorf("record the connection: %w", err)
	}
	return h.AttemptID, nil
}
