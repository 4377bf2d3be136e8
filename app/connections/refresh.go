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

// token is getToken: the stored access token, or a fresh one when it expires within
// connection.RefreshWindow (spec, Where credentials live). h records the stored document's tokens.
func (s *Service) token(ctx context.Context, user uuid.UUID, in *plugins.Integration, st connection.State, h *held) (string, error) {
	if !st.NeedsRefresh(s.clock(), connection.RefreshWindow) {
		doc, err := s.openDocument(ctx, user, in.Name, st.Credential)
		if err != nil {
			return "", err
		}
		h.document(doc)
		tok := doc.token(source(in, doc)).AccessToken
		if tok == "" {
			return "", notConnected(in, connection.State{Account: st.Account})
		}
		return tok, nil
	}
	if h != nil {
		// The refresh token about to be presented is redacted too: a failed refresh's message quotes
		// the token endpoint's error_description.
		if doc, err := s.openDocument(ctx, user, in.Name, st.Credential); err == nil {
			h.document(doc)
		}
	}
	return s.refreshShared(ctx, user, in, st.Label())
}

// flight is one refresh in progress, shared by every caller of this process that needs it.
type flight struct {
	done  chan struct{}
	token string
	err   error
}

// refreshShared runs at most one refresh per connection at a time in this process (single flight):
// the first caller refreshes and the others wait for its result. The refresh runs on a context
// detached from the first caller's cancellation, so that one impatient caller does not fail the rest.
func (s *Service) refreshShared(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (string, error) {
	key := connection.StreamName(user, in.Name, account)
	s.flightsMu.Lock()
	f, ok := s.flights[key]
	if !ok {
		f = &flight{done: make(chan struct{})}
		s.flights[key] = f
		s.flightsMu.Unlock()
		go func() {
			rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*RefreshLeaseTTL)
			defer cancel()
			f.token, f.err = s.refresh(rctx, user, in, account)
			s.flightsMu.Lock()
			delete(s.flights, key)
			s.flightsMu.Unlock()
			close(f.done)
		}()
	} else {
		s.flightsMu.Unlock()
	}
	select {
	case <-f.done:
		return f.token, f.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// maxRefreshRounds bounds how often refresh re-reads after losing a race.
const maxRefreshRounds = 8

// refresh performs the refresh_token grant (RFC 6749 section 6) for one connection, once across every
// replica: it reads the connection from the log; if it no longer needs a refresh (another caller
// refreshed), it uses that token. Otherwise it claims the credential's generation in the refresh
// lease stream, so that only one caller anywhere presents the refresh token; a loser waits for the
// winner's TokenRefreshed and uses its token. The new credential is stored with connection.Refresh
// naming the generation it replaces.
func (s *Service) refresh(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (string, error) {
	stream := connection.StreamName(user, in.Name, account)
	wake, stop := s.hub.watch(stream)
	defer stop()
	for round := 0; round < maxRefreshRounds; round++ {
		st, _, err := s.loadConnection(ctx, user, in.Name, account)
		if err != nil {
			return "", err
		}
		now := s.clock()
		if !st.Usable(now) {
			return "", notConnected(in, st)
		}
		doc, err := s.openDocument(ctx, user, in.Name, st.Credential)
		if err != nil {
			return "", err
		}
		src := source(in, doc)
		cur := doc.token(src)
		if !st.NeedsRefresh(now, connection.RefreshWindow) {
			return cur.AccessToken, nil
		}
		if cur.RefreshToken == "" {
			return "", domain.Errorf(domain.CodeNotConnected, "the %s access token has expired and %s gave no refresh token to renew it; reconnect with %s", in.Name, in.Name, connectCall(in, account))
		}
		claim := connection.ClaimRefresh{UserID: user, Integration: in.Name, Account: account, Generation: st.Generation, ClaimID: uuid.New(), At: now, Until: now.Add(RefreshLeaseTTL)}
		err = s.claimRefresh(ctx, claim)
		switch {
		case errors.Is(err, connection.ErrRefreshClaimed):
			// Another replica is refreshing: wait for its TokenRefreshed (or for its claim to lapse).
			if err := s.waitForStream(ctx, wake, claim.At.Add(RefreshLeaseTTL)); err != nil {
				return "", err
			}
			continue
		case errors.Is(err, connection.ErrCredentialChanged):
			continue
		case err != nil:
			return "", fmt.Errorf("claim the %s refresh: %w", in.Name, err)
		}

		// The refresh token presented is the injected token's own: Slack rotates the bot and the user
		// token separately, each answering with its new token at the top level.
		tr, err := s.tokenRequest(ctx, in, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {cur.RefreshToken}})
		var oe *OAuthError
		if errors.As(err, &oe) && oe.Code == "invalid_grant" {
			// RFC 6749 section 5.2: the refresh token is invalid, expired or revoked. Withdraw the
			// credential, unless a newer one replaced it meanwhile.
			_, rerr := s.execute(ctx, user, in.Name, account, connection.RequireReauth{Generation: st.Generation, Reason: "invalid_grant", At: s.clock()})
			if errors.Is(rerr, connection.ErrCredentialChanged) {
				continue
			}
			if rerr != nil {
				return "", fmt.Errorf("record that %s needs re-authorization: %w", in.Name, rerr)
			}
			return "", domain.Errorf(domain.CodeNotConnected, "%s refused the stored grant (invalid_grant): the user revoked it or it expired; reconnect with %s", in.Name, connectCall(in, account))
		}
		if err != nil {
			return "", &domain.Error{Code: domain.CodeUnavailable, Message: fmt.Sprintf("refreshing the %s token failed: %s", in.Name, safeMessage(err)), Err: err}
		}
		now = s.clock()
		fresh := tr.document(now)
		tok := Token{AccessToken: fresh.AccessToken, RefreshToken: fresh.RefreshToken, Scope: fresh.Scope, ExpiresAt: fresh.ExpiresAt}
		kept := false
		if tok.RefreshToken == "" {
			// RFC 6749 section 6: the server may keep the refresh token unchanged.
			tok.RefreshToken, kept = cur.RefreshToken, true
		}
		if tok.Scope == "" {
			tok.Scope = cur.Scope
		}
		// The other token (Slack's bot token when the user token was refreshed, or the reverse)
		// stays as it was.
		next := doc.withToken(src, tok)
		if src == slotMain {
			next.TokenType = fresh.TokenType
		}
		extra := next.Extra
		next.Extra = fresh.Extra
		// What the connect stored beside the token (post-consent values such as Atlassian's cloud
		// id, token-response members) outlives a refresh unless the refresh answer replaces it.
		postConsent := map[string]bool{}
		for _, k := range in.CredentialKeys() {
			postConsent[k] = true
		}
		for k, v := range extra {
			if _, replaced := next.Extra[k]; !replaced || postConsent[k] {
				if next.Extra == nil {
					next.Extra = map[string]json.RawMessage{}
				}
				next.Extra[k] = v
			}
		}
		sealed, err := s.sealDocument(ctx, user, in.Name, next)
		if err != nil {
			return "", err
		}
		_, err = s.execute(ctx, user, in.Name, account, connection.Refresh{
			Generation: st.Generation, Credential: sealed, ExpiresAt: tok.ExpiresAt, KeptOldRefreshToken: kept, At: now,
		})
		if errors.Is(err, connection.ErrCredentialChanged) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("store the refreshed %s token: %w", in.Name, err)
		}
		return tok.AccessToken, nil
	}
	return "", domain.Errorf(domain.CodeUnavailable, "refreshing the %s token kept racing with other refreshes; try again", in.Name)
}

// waitForStream waits for a wake-up on a watched stream, until (a lease's end), or ctx.
func (s *Service) waitForStream(ctx context.Context, wake <-chan struct{}, until time.Time) error {
	d := max(until.Sub(s.clock()), 0)
	t := time.NewTimer(d)
	defer t.Stop()
	poll := time.NewTicker(s.pollEvery) // a fallback should a bus notification be lost
	defer poll.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
	case <-poll.C:
	case <-t.C:
	}
	return nil
}

// safeMessage is the caller-safe text of a token request error.
func safeMessage(err error) string {
	var oe *OAuthError
	if errors.As(err, &oe) {
		return oe.Error()
	}
	return domain.ErrorMessage(err)
}
