package connection

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Start opens a connect attempt: connect() (or get_auth_url, or the portal) mints a claim link that
// expires at ExpiresAt, and AttemptID is the connectionId an agent waits on.
//
// A Start while another attempt is pending supersedes it: the old attempt ends with PendingExpired
// (reason superseded, or expired if its link had run out already) and its waiter reports EXPIRED; the
// new attempt is the only one a callback can complete. A Start while connected is a reconnect (new
// scopes, another account, a re-authorization): the stored credential keeps serving tool calls until
// the attempt connects and replaces it.
//
// With JoinPending, a Start while an attempt of the same auth mode is pending and its link still
// valid decides nothing: the caller answers that attempt (its id and link), so two agent sessions of
// one user share one connect flow instead of the second expiring the first.
type Start struct {
	AttemptID   uuid.UUID
	UserID      uuid.UUID
	Integration string
	Account     string // the account's label; empty means DefaultAccount
	AuthMode    AuthMode
	At          time.Time
	ExpiresAt   time.Time // the claim link's expiry; must be after At
	JoinPending bool
}

func (c Start) decide(s State) ([]domain.Event, error) {
	const what = "start connection"
	if c.AttemptID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no attempt id", what)
	}
	account, err := checkTarget(what, s, c.UserID, c.Integration, c.Account)
	if err != nil {
		return nil, err
	}
	if err := checkMode(what, c.AuthMode); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	expires, err := checkExpiry(what, c.ExpiresAt, at, false)
	if err != nil {
		return nil, err
	}
	if c.AttemptID == s.Attempt.ID {
		return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s was already started; every attempt needs a fresh id", what, c.AttemptID)
	}
	if c.JoinPending && s.Attempt.Pending() && !s.Attempt.ExpiredBy(at) && s.Attempt.AuthMode == c.AuthMode {
		return nil, nil
	}
	var events []domain.Event
	if s.Attempt.Pending() {
		events = append(events, PendingExpired{
			AttemptID: s.Attempt.ID, UserID: c.UserID, Integration: c.Integration, Account: account,
			Reason: expiryOf(s.Attempt, at), At: at,
		})
	}
	return append(events, Started{
		AttemptID: c.AttemptID, UserID: c.UserID, Integration: c.Integration, Account: account, AuthMode: c.AuthMode,
		StartedAt: at, ExpiresAt: expires,
	}), nil
}
