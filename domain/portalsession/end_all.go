package portalsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// EndAll ends every session of the user issued at or before At ("sign out everywhere").
type EndAll struct {
	UserID uuid.UUID
	At     time.Time
}

func (c EndAll) decide(s State) ([]domain.Event, error) {
	const what = "end all sessions"
	if err := checkUser(what, s, c.UserID); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if !at.After(s.EndedBefore) {
		return nil, nil // a later cut is already recorded and covers this one
	}
	return []domain.Event{AllSessionsEnded{UserID: c.UserID, At: at}}, nil
}
