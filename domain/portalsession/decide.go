package portalsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Command is a request to end sessions: End or EndAll, one file each. The interface is sealed so that
// Decide knows them all.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into the events it causes, or refuses it with a *domain.Error (CodeInvalid:
// the command is malformed or names another user than the stream's). It is pure.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// checkUser refuses a command without a user, or for another user than the stream's.
func checkUser(what string, s State, user uuid.UUID) error {
	if user == uuid.Nil {
		return domain.Errorf(domain.CodeInvalid, "%s: no user id", what)
	}
	if s.Exists() && s.UserID != user {
		return domain.Errorf(domain.CodeInvalid, "%s: the command is for user %s but the stream is %s's", what, user, s.UserID)
	}
	return nil
}

// checkTime refuses a command without a time and returns it in UTC without a monotonic reading.
func checkTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	return t.UTC().Round(0), nil
}
