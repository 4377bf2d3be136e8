package connection

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// ExpirePending records that a pending attempt's claim link ran out: its waiter reports EXPIRED. The
// sweeper (or the waiter itself at the deadline) sends it; a conflict means the attempt ended some
// other way first, which the sender may treat as done.
type ExpirePending struct {
	AttemptID uuid.UUID
	At        time.Time // not before the attempt's ExpiresAt
}

func (c ExpirePending) decide(s State) ([]domain.Event, error) {
	const what = "expire connect attempt"
	if c.AttemptID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no attempt id", what)
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	a := s.Attempt
	switch {
	case !s.Exists():
		return nil, domain.Errorf(domain.CodeNotFound, "%s: there is no connect attempt %s", what, c.AttemptID)
	case a.ID != c.AttemptID:
		return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s is not the current attempt of %s (it was superseded or never started)", what, c.AttemptID, s.Integration)
	case a.Outcome == AttemptConnected:
		return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s has connected", what, c.AttemptID)
	case a.Outcome == AttemptExpired:
		return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s has already ended (%s)", what, c.AttemptID, a.Reason)
	case !a.ExpiredBy(at):
		return nil, domain.Errorf(domain.CodeConflict, "%s: attempt %s does not expire until %s", what, c.AttemptID, a.ExpiresAt.Format(time.RFC3339))
	}
	return []domain.Event{PendingExpired{
		AttemptID: a.ID, UserID: s.UserID, Integration: s.Integration, Account: s.Account, Reason: ExpiryTimedOut, At: at,
	}}, nil
}
