package connection

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Connect stores a credential.
//
// With an AttemptID it completes that attempt (the OAuth callback, a cookie capture or API-key form
// reached through a claim link): the attempt must be the pending one, started for the same auth mode,
// and not past its expiry. An OAuth connection always completes an attempt, because the callback is
// only reachable through one.
//
// Without an AttemptID it is a direct connect from the portal (API-key fields or a cookie bundle
// posted by the signed-in user). If an attempt for the same auth mode is pending and unexpired, the
// direct connect completes it, since the user did what its link asked and its waiter should hear
// CONNECTED; any other pending attempt ends as superseded (or expired).
//
// Connecting while connected replaces the credential (a new API key, a reconnect).
type Connect struct {
	AttemptID   uuid.UUID // the attempt completed; uuid.Nil for a direct connect
	UserID      uuid.UUID
	Integration string
	Account     string // the account's label; empty means DefaultAccount
	AuthMode    AuthMode
	Credential  domain.Sealed // sealed under the user's data key (subject = user id)
	ExpiresAt   time.Time     // the credential's expiry; zero when it never expires
	Scopes      []string      // as granted
	AccountHint string        // a non-secret label of the provider account ("octocat"), optional
	At          time.Time
}

func (c Connect) decide(s State) ([]domain.Event, error) {
	const what = "connect"
	account, err := checkTarget(what, s, c.UserID, c.Integration, c.Account)
	if err != nil {
		return nil, err
	}
	if err := checkMode(what, c.AuthMode); err != nil {
		return nil, err
	}
	if c.AuthMode == AuthOAuth2 && c.AttemptID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: an OAuth connection completes a connect attempt; no attempt id was given", what)
	}
	if err := checkCredential(what, c.Credential, c.UserID); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	expires, err := checkExpiry(what, c.ExpiresAt, at, true)
	if err != nil {
		return nil, err
	}
	for _, sc := range c.Scopes {
		if err := checkText(what, "a scope", sc, maxTextLen, true); err != nil {
			return nil, err
		}
	}
	if err := checkText(what, "the account hint", c.AccountHint, maxTextLen, false); err != nil {
		return nil, err
	}
	connected := Connected{
		AttemptID: c.AttemptID, UserID: c.UserID, Integration: c.Integration, Account: account, AuthMode: c.AuthMode,
		Credential: c.Credential, ExpiresAt: expires, AccountHint: c.AccountHint, ConnectedAt: at,
	}
	if len(c.Scopes) > 0 {
		connected.Scopes = slices.Clone(c.Scopes)
	}

	a := s.Attempt
	if c.AttemptID != uuid.Nil {
		switch {
		case !s.Exists():
			return nil, domain.Errorf(domain.CodeNotFound, "%s: there is no connect attempt %s for %s", what, c.AttemptID, c.Integration)
		case a.ID != c.AttemptID:
			return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s is not the pending attempt of %s (it was superseded or never started)", what, c.AttemptID, c.Integration)
		case a.Outcome == AttemptConnected:
			return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s has already connected", what, c.AttemptID)
		case a.Outcome == AttemptExpired:
			return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s has ended (%s); start a new one", what, c.AttemptID, a.Reason)
		case a.ExpiredBy(at):
			return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s expired at %s; start a new one", what, c.AttemptID, a.ExpiresAt.Format(time.RFC3339))
		case a.AuthMode != c.AuthMode:
			return nil, domain.Errorf(domain.CodeInvalid, "%s: attempt %s was started for auth mode %s, not %s", what, c.AttemptID, a.AuthMode, c.AuthMode)
		}
		return []domain.Event{connected}, nil
	}

	// A direct connect.
	if !a.Pending() {
		return []domain.Event{connected}, nil
	}
	if a.AuthMode == c.AuthMode && !a.ExpiredBy(at) {
		connected.AttemptID = a.ID
		return []domain.Event{connected}, nil
	}
	return []domain.Event{
		PendingExpired{AttemptID: a.ID, UserID: c.UserID, Integration: c.Integration, Account: account, Reason: expiryOf(a, at), At: at},
		connected,
	}, nil
}
