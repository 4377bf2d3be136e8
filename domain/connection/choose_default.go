package connection

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// ChooseDefault makes this account the default of its integration: the one a tool call, a
// curl_session or a connect without an account label uses. Only an account that holds a credential
// (connected, or needing re-authorization) can be chosen. Choosing the account that is already the
// default is recorded again: the latest choice among the user's accounts wins (DefaultOf).
type ChooseDefault struct {
	At time.Time
}

func (c ChooseDefault) decide(s State) ([]domain.Event, error) {
	const what = "choose the default account"
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	switch {
	case !s.Exists():
		return nil, domain.Errorf(domain.CodeNotFound, "%s: there is no such account", what)
	case !s.Held():
		return nil, domain.Errorf(domain.CodeConflict, "%s: account %s of %s holds no credential (%s); connect it first", what, s.Label(), s.Integration, s.Status())
	}
	return []domain.Event{DefaultChosen{UserID: s.UserID, Integration: s.Integration, Account: s.Account, At: at}}, nil
}

// DefaultOf returns the index of the default account among one user's accounts of one integration
// (the states of its streams, in any order), or -1 when none holds a credential. The account chosen
// last (ChooseDefault) wins; without a choice, the account that has held its credential the longest
// (the first connected); equal times fall to the smaller label, so every replica answers alike.
func DefaultOf(accounts []State) int {
	best := -1
	for i, a := range accounts {
		if !a.Held() {
			continue
		}
		if best < 0 || before(accounts[best], a) {
			best = i
		}
	}
	return best
}

// before reports whether b is a better default than a.
func before(a, b State) bool {
	switch {
	case !a.DefaultChosenAt.Equal(b.DefaultChosenAt):
		return b.DefaultChosenAt.After(a.DefaultChosenAt)
	case !a.Since.Equal(b.Since):
		return b.Since.Before(a.Since)
	}
	return b.Label() < a.Label()
}
