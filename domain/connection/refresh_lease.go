package connection

import (
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// # The refresh lease
//
// Refresh's Generation keeps a losing refresher from storing a stale token, but it acts only after
// the provider was called. Providers that rotate refresh tokens may treat a second use of the old one
// as theft and revoke the whole grant (OAuth 2.0 Security BCP, RFC 9700 section 4.14.2), so across
// replicas only one caller may present a given refresh token at all. Before calling the provider a
// refresher claims the generation it read in the stream "connection_refresh-<user>-<integration>";
// the stream's expected version lets exactly one claim per generation win. The loser waits for the
// winner's TokenRefreshed and uses that token. A claim lapses at Until, so a replica that dies
// mid-refresh does not block the connection for good.

// TypeRefreshClaimed is the lease event's type name. It does not start with "connection." on
// purpose: the connections projection skips it.
const TypeRefreshClaimed = "connection_refresh.claimed"

// RefreshLeaseStreamName is the lease stream of one account of a user's connection to one
// integration; the default account keeps the name it had before accounts existed (see StreamName).
func RefreshLeaseStreamName(userID uuid.UUID, integration, account string) string {
	return "connection_refresh-" + userID.String() + "-" + integration + accountSuffix(account)
}

// RefreshClaimed says ClaimID may refresh credential generation Generation until Until.
type RefreshClaimed struct {
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Account     string    `json:"account,omitempty"`
	Generation  int64     `json:"generation"`
	ClaimID     uuid.UUID `json:"claim_id"`
	At          time.Time `json:"at"`
	Until       time.Time `json:"until"`
}

func (RefreshClaimed) EventType() string { return TypeRefreshClaimed }

// RefreshLeaseEvents returns a zero value of every lease event, for a codec.
func RefreshLeaseEvents() []domain.Event { return []domain.Event{RefreshClaimed{}} }

// RefreshLease is the latest claim.
type RefreshLease struct {
	Generation int64
	ClaimID    uuid.UUID
	Until      time.Time
}

// InitialRefreshLease is a lease stream with no events.
func InitialRefreshLease() RefreshLease { return RefreshLease{} }

// EvolveRefreshLease folds one event into the lease.
func EvolveRefreshLease(l RefreshLease, ev domain.Event) RefreshLease {
	if e, ok := ev.(RefreshClaimed); ok {
		l = RefreshLease{Generation: e.Generation, ClaimID: e.ClaimID, Until: e.Until}
	}
	return l
}

// ErrRefreshClaimed causes the CodeConflict of a claim for a generation another caller holds.
var ErrRefreshClaimed = errors.New("another caller is refreshing this credential")

// ClaimRefresh asks for the right to refresh credential generation Generation until Until.
type ClaimRefresh struct {
	UserID      uuid.UUID
	Integration string
	Account     string // empty means DefaultAccount
	Generation  int64
	ClaimID     uuid.UUID
	At          time.Time
	Until       time.Time
}

// DecideRefreshLease grants a claim (RefreshClaimed) or refuses it: CodeConflict wrapping
// ErrCredentialChanged for a generation older than one already claimed, wrapping ErrRefreshClaimed
// while another claim on the same generation is live. A repeated claim by the same ClaimID is granted
// without a new event.
func DecideRefreshLease(l RefreshLease, c ClaimRefresh) ([]domain.Event, error) {
	const what = "claim refresh"
	if c.ClaimID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no claim id", what)
	}
	if c.Generation < 1 {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no credential generation", what)
	}
	account, err := checkTarget(what, State{}, c.UserID, c.Integration, c.Account)
	if err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	until, err := checkExpiry(what, c.Until, at, false)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Generation < l.Generation:
		return nil, &domain.Error{Code: domain.CodeConflict, Message: what + ": a newer credential was claimed meanwhile; read it again", Err: ErrCredentialChanged}
	case c.Generation == l.Generation && c.ClaimID == l.ClaimID:
		return nil, nil
	case c.Generation == l.Generation && at.Before(l.Until):
		return nil, &domain.Error{Code: domain.CodeConflict, Message: what + ": another caller is refreshing this credential", Err: ErrRefreshClaimed}
	}
	return []domain.Event{RefreshClaimed{
		UserID: c.UserID, Integration: c.Integration, Account: account, Generation: c.Generation, ClaimID: c.ClaimID, At: at, Until: until,
	}}, nil
}
