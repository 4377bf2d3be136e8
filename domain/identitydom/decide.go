package identitydom

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// Command is a request to change a user. The commands are CreateUser, MintAPIKey, RotateAPIKey,
// RevokeAPIKey and EraseUser, one file each; the interface is sealed so that Decide knows them all.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into the events it causes, or refuses it with a *domain.Error. It is pure:
// times, ids and hashes arrive in the command, the past in the state. What can be checked in the
// command alone is checked before the state is consulted, so such a malformed command is CodeInvalid
// whatever the state; then a missing user is CodeNotFound; then checks against the user (a sealed
// key's subject) are CodeInvalid and disallowed transitions CodeConflict.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// checkTime refuses a command that carries no time, and returns the time in UTC without a monotonic
// reading, the form it keeps in the log.
func checkTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	return t.UTC(), nil
}
