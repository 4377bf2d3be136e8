package connection

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// RequireReauth withdraws the credential because the provider refused it for good: a refresh answered
// invalid_grant (RFC 6749 section 5.2), or an API key is rejected. Tool calls then answer
// NOT_CONNECTED until the user reconnects (Start, then Connect). Generation is the credential
// generation that failed; a newer credential (a concurrent refresh or reconnect won) is not withdrawn,
// and the command is a CodeConflict wrapping ErrCredentialChanged.
type RequireReauth struct {
	Generation int64
	Reason     string // what the provider said, e.g. "invalid_grant"
	At         time.Time
}

func (c RequireReauth) decide(s State) ([]domain.Event, error) {
	const what = "require re-authorization"
	if c.Generation < 1 {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no credential generation", what)
	}
	if err := checkText(what, "reason", c.Reason, maxTextLen, true); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if !s.Connected() {
		return nil, notConnected(what, s)
	}
	if c.Generation != s.Generation {
		return nil, &domain.Error{
			Code:    domain.CodeConflict,
			Message: "require re-authorization: the credential was refreshed or replaced meanwhile; read it again",
			Err:     ErrCredentialChanged,
		}
	}
	return []domain.Event{ReauthorizationRequired{
		UserID: s.UserID, Integration: s.Integration, Account: s.Account, Reason: c.Reason, At: at,
	}}, nil
}
