package connection

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// Disconnect removes the stored credential, usable or needing re-authorization. A pending attempt
// ends with it (PendingExpired, reason cancelled), so that no consent still in flight reconnects the
// integration behind the user's back.
type Disconnect struct {
	Reason string // optional, e.g. "user request"
	At     time.Time
}

func (c Disconnect) decide(s State) ([]domain.Event, error) {
	const what = "disconnect"
	if err := checkText(what, "reason", c.Reason, maxTextLen, false); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	switch {
	case !s.Exists():
		return nil, domain.Errorf(domain.CodeNotFound, "%s: there is no connection to disconnect", what)
	case s.CredentialStatus == StatusDisconnected:
		return nil, domain.Errorf(domain.CodeConflict, "%s: %s is already disconnected", what, s.Integration)
	case s.CredentialStatus != StatusConnected && s.CredentialStatus != StatusNeedsReauth:
		return nil, domain.Errorf(domain.CodeConflict, "%s: %s was never connected; nothing to disconnect", what, s.Integration)
	}
	var events []domain.Event
	if s.Attempt.Pending() {
		events = append(events, PendingExpired{
			AttemptID: s.Attempt.ID, UserID: s.UserID, Integration: s.Integration, Account: s.Account, Reason: ExpiryCancelled, At: at,
		})
	}
	return append(events, Disconnected{UserID: s.UserID, Integration: s.Integration, Account: s.Account, Reason: c.Reason, At: at}), nil
}
