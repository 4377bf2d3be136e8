package login

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// TypeDefaultChosen is the event type of DefaultChosen, never changed once stored.
const TypeDefaultChosen = "login.default_chosen"

// DefaultChosen makes this account the one its owner's calls of the connector use when they name no
// account (see DefaultOf).
type DefaultChosen struct {
	LoginID  uuid.UUID `json:"login_id"`
	ServerID string    `json:"server_id"`
	Owner    Owner     `json:"owner"`
	Account  string    `json:"account,omitempty"` // empty for the default account
	At       time.Time `json:"at"`
}

func (DefaultChosen) EventType() string { return TypeDefaultChosen }

// ChooseDefault makes a login the default account of its owner and connector: the one a call that
// names no account uses. Only a connected login can be chosen. Choosing the account that is the
// default already is recorded again: the latest choice among the owner's accounts wins.
type ChooseDefault struct {
	LoginID uuid.UUID
	At      time.Time
}

func (c ChooseDefault) decide(s State) ([]domain.Event, error) {
	const what = "choose the default account"
	if !s.Exists() || (c.LoginID != uuid.Nil && s.LoginID != c.LoginID) {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: no such login", what)
	}
	if c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no time", what)
	}
	if s.Status != StatusConnected {
		return nil, domain.Errorf(domain.CodeConflict, "%s: account %s of %s is %s; connect it first", what, s.Label(), s.ServerID, s.Status)
	}
	return []domain.Event{DefaultChosen{LoginID: s.LoginID, ServerID: s.ServerID, Owner: s.Owner, Account: s.Account, At: c.At.UTC()}}, nil
}

// DefaultOf returns the index of the default account among the logins of one owner and one
// connector (in any order), or -1 when none is connected. The account chosen last (ChooseDefault)
// wins; without a choice, the login made first; equal times go to the smaller label.
func DefaultOf(logins []State) int {
	best := -1
	for i, l := range logins {
		if !l.Exists() || l.Status != StatusConnected {
			continue
		}
		if best < 0 || before(l, logins[best]) {
			best = i
		}
	}
	return best
}

// before reports whether a is a better default than b.
func before(a, b State) bool {
	if !a.DefaultChosenAt.Equal(b.DefaultChosenAt) {
		return a.DefaultChosenAt.After(b.DefaultChosenAt)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.Label() < b.Label()
}
