package portalsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// State is what a user's stream says about their ended sessions.
type State struct {
	UserID uuid.UUID
	// EndedBefore: every session issued at or before it is over (zero: no sign-out everywhere yet).
	EndedBefore time.Time
	// Ended holds the sessions ended one by one, with when they would have lapsed; those lapsed by
	// the time of the stream's latest event are forgotten.
	Ended map[uuid.UUID]time.Time
}

// Initial is the state of a user with no ended session.
func Initial() State { return State{} }

// Exists reports whether the stream has any event.
func (s State) Exists() bool { return s.UserID != uuid.Nil }

// IsEnded reports whether a session issued at issued is over.
func (s State) IsEnded(session uuid.UUID, issued time.Time) bool {
	if !s.EndedBefore.IsZero() && !issued.After(s.EndedBefore) {
		return true
	}
	_, ok := s.Ended[session]
	return ok
}

// Evolve folds one event into the state. It copies the map it changes, so a state once given out is
// never altered.
func Evolve(s State, ev domain.Event) State {
	switch e := ev.(type) {
	case SessionEnded:
		ended := make(map[uuid.UUID]time.Time, len(s.Ended)+1)
		for id, exp := range s.Ended {
			if exp.After(e.At) {
				ended[id] = exp
			}
		}
		if e.ExpiresAt.After(e.At) {
			ended[e.SessionID] = e.ExpiresAt
		}
		s.UserID, s.Ended = e.UserID, ended
	case AllSessionsEnded:
		s.UserID = e.UserID
		if e.At.After(s.EndedBefore) {
			s.EndedBefore = e.At
		}
		// Every session in Ended was issued before now, so the cut covers it.
		s.Ended = nil
	}
	return s
}
