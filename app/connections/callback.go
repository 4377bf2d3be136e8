package connections

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/plugins"
)

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
//
// Each step below is one function of this file, in the order they run.
func (s *Service) Callback(ctx context.Context, sessionUser uuid.UUID, integration string, q url.Values) (uuid.UUID, error) {
	h, now, err := s.receiveCallback(ctx, sessionUser, integration, q)
	if err != nil {
		return h.AttemptID, err
	}
	in, err := s.callbackIntegration(ctx, h, now, q.Get("code"))
	if err != nil {
		return h.AttemptID, err
	}
	connect, err := s.exchangeCode(ctx, in, h, q.Get("code"))
	if err != nil {
		return h.AttemptID, err
	}
	return h.AttemptID, s.recordConnected(ctx, connect)
}

// receiveCallback finds the handshake the redirect's state names and, once the browser's portal user
// is the handshake's, records connection.ReceiveCallback (refused for a state used before) and
// answers the provider's error if it sent one. The Handshake is zero when the state names none. It
// returns the time it recorded.
func (s *Service) receiveCallback(ctx context.Context, sessionUser uuid.UUID, integration string, q url.Values) (connection.Handshake, time.Time, error) {
	state := q.Get("state")
	if state == "" || len(state) > 512 {
		return connection.Handshake{}, time.Time{}, &domain.Error{Code: domain.CodeInvalid, Message: "the provider's redirect carries no state", Err: ErrUnknownState}
	}
	hash := stateHash(state)
	h, err := s.loadHandshake(ctx, hash)
	if err != nil {
		return connection.Handshake{}, time.Time{}, fmt.Errorf("load OAuth handshake: %w", err)
	}
	if !h.Exists() || h.Integration != integration {
		return connection.Handshake{}, time.Time{}, &domain.Error{Code: domain.CodeNotFound, Message: "this sign-in answer matches no connect request; start again from the connect link", Err: ErrUnknownState}
	}
	switch {
	case sessionUser == uuid.Nil:
		return h, time.Time{}, &domain.Error{Code: domain.CodeUnauthenticated, Message: "sign in to the workbench portal in this browser, then open the connect link again", Err: ErrNotSignedIn}
	case sessionUser != h.UserID:
		return h, time.Time{}, &domain.Error{Code: domain.CodeForbidden, Message: "this sign-in answer belongs to another workbench account", Err: ErrAccountMismatch}
	}
	providerErr := cleanCode(q.Get("error"))
	if q.Get("error") != "" && providerErr == "" {
		providerErr = "invalid_error"
	}
	now := s.clock()
	if err := s.executeHandshake(ctx, hash, h.UserID, connection.ReceiveCallback{ProviderError: providerErr, At: now}); err != nil {
		return h, now, fmt.Errorf("OAuth callback: %w", err)
	}
	if providerErr != "" {
		return h, now, &domain.Error{Code: domain.CodeForbidden, Message: fmt.Sprintf("%s did not grant access (%s)", integration, providerErr), Err: ErrProviderDenied}
	}
	return h, now, nil
}

// callbackIntegration checks that the handshake's attempt is still the connection's pending one at
// now, that the redirect carries a code, and that the integration still uses OAuth; it returns the
// integration.
func (s *Service) callbackIntegration(ctx context.Context, h connection.Handshake, now time.Time, code string) (*plugins.Integration, error) {
	if st, _, err := s.loadConnection(ctx, h.UserID, h.Integration, h.Account); err != nil {
		return nil, err
	} else if a := st.Attempt; a.ID != h.AttemptID || !a.Pending() || a.ExpiredBy(now) {
		return nil, &domain.Error{Code: domain.CodeConflict, Message: "the connect link expired or was replaced before the sign-in finished; ask for a new one", Err: ErrHandshakeExpired}
	}
	if code == "" || len(code) > 4096 {
		return nil, &domain.Error{Code: domain.CodeInvalid, Message: "the provider's redirect carries no code", Err: ErrExchangeFailed}
	}
	in, err := s.integration(h.Integration)
	if err != nil {
		return nil, err
	}
	if in.Auth.Mode != plugins.AuthOAuth2 || in.Auth.OAuth2 == nil {
		return nil, domain.Errorf(domain.CodeInternal, "%s no longer uses OAuth", in.Name)
	}
	return in, nil
}

// exchangeCode presents the code with the handshake's PKCE verifier at the token endpoint, runs the
// post-consent lookup with the new token, and seals the credential document: it returns the
// connection.Connect that records it.
func (s *Service) exchangeCode(ctx context.Context, in *plugins.Integration, h connection.Handshake, code string) (connection.Connect, error) {
	rawVerifier, err := s.vault.Open(ctx, h.Verifier, verifierPurpose(in.Name))
	if err != nil || h.Verifier.Subject != h.UserID.String() {
		return connection.Connect{}, fmt.Errorf("open the PKCE verifier: %w", errors.Join(err, errors.New("verifier unusable")))
	}
	tr, err := s.tokenRequest(ctx, in, url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {h.RedirectURI},
		"code_verifier": {string(rawVerifier)},
	})
	if err != nil {
		return connection.Connect{}, &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("%s refused the sign-in: %s", in.Name, domain.ErrorMessage(err)), Err: errors.Join(ErrExchangeFailed, err)}
	}
	now := s.clock()
	doc := tr.document(now)
	src := source(in, doc)
	injected := doc.token(src)
	extra, err := s.postConsent(ctx, in, injected.AccessToken)
	if err != nil {
		return connection.Connect{}, &domain.Error{Code: domain.ErrorCode(err), Message: domain.ErrorMessage(err), Err: errors.Join(ErrExchangeFailed, err)}
	}
	for k, v := range extra {
		if doc.Extra == nil {
			doc.Extra = map[string]json.RawMessage{}
		}
		doc.Extra[k] = v
	}
	sealed, err := s.sealDocument(ctx, h.UserID, in.Name, doc)
	if err != nil {
		return connection.Connect{}, err
	}
	return connection.Connect{
		AttemptID: h.AttemptID, UserID: h.UserID, Integration: in.Name, Account: h.Account, AuthMode: connection.AuthOAuth2,
		Credential: sealed, ExpiresAt: injected.ExpiresAt, Scopes: tr.token(src).scopes(in.Auth.OAuth2.ScopeSeparator), At: now,
	}, nil
}

// recordConnected records the connection; the domain refuses it (a conflict) when the attempt ended
// meanwhile.
func (s *Service) recordConnected(ctx context.Context, connect connection.Connect) error {
	if _, err := s.execute(ctx, connect.UserID, connect.Integration, connect.Account, connect); err != nil {
		if domain.ErrorCode(err) == domain.CodeConflict {
			return &domain.Error{Code: domain.CodeConflict, Message: "the connect link expired or was replaced before the sign-in finished; ask for a new one", Err: errors.Join(ErrHandshakeExpired, err)}
		}
		return fmt.Errorf("record the connection: %w", err)
	}
	return nil
}
