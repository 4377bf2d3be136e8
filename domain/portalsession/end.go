package portalsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// End ends one session: the person signed out in this browser.
type End struct {
	UserID    uuid.UUID
	SessionID uuid.UUID
	// IssuedAt and ExpiresAt are the session's own, from its cookie.
	IssuedAt  time.Time
	ExpiresAt time.Time
	At        time.Time
}

func (c End) decide(s State) ([]domain.Event, error) {
	const what = "end session"
	if err := checkUser(what, s, c.UserID); err != nil {
		return nil, err
	}
	if c.SessionID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no session id", what)
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if c.IssuedAt.IsZero() || c.ExpiresAt.IsZero() || !c.ExpiresAt.After(c.IssuedAt) {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: the session's issue and expiry times are missing or out of order", what)
	}
	if s.IsEnded(c.SessionID, c.IssuedAt) || !c.ExpiresAt.After(at) {
		return nil, nil // already over: signing out twice records nothing
	}
	return []domain.Event{SessionEnded{UserID: c.UserID, SessionID: c.SessionID, ExpiresAt: c.ExpiresAt.UTC().Round(0), At: at}}, nil
}
