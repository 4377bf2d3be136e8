package connection

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// Refresh stores the credential a refresh_token grant returned (RFC 6749 section 6). Generation is
// State.Generation as read before calling the provider: if the stored credential has changed since,
// another caller refreshed first and this refresh is refused with a CodeConflict wrapping
// ErrCredentialChanged, so that the loser re-reads instead of overwriting the newer credential.
type Refresh struct {
	Generation int64
	Credential domain.Sealed // the new document; carries the old refresh token over when none came back
	ExpiresAt  time.Time     // the new access token's expiry; zero when the provider gave none
	// KeptOldRefreshToken records that the provider returned no new refresh token.
	KeptOldRefreshToken bool
	At                  time.Time
}

func (c Refresh) decide(s State) ([]domain.Event, error) {
	const what = "refresh"
	if c.Generation < 1 {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no credential generation", what)
	}
	if c.Credential.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no credential", what)
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	expires, err := checkExpiry(what, c.ExpiresAt, at, true)
	if err != nil {
		return nil, err
	}
	if !s.Connected() {
		return nil, notConnected(what, s)
	}
	if err := checkCredential(what, c.Credential, s.UserID); err != nil {
		return nil, err
	}
	if c.Generation != s.Generation {
		return nil, &domain.Error{
			Code:    domain.CodeConflict,
			Message: "refresh: the credential was refreshed or replaced meanwhile; read it again",
			Err:     ErrCredentialChanged,
		}
	}
	return []domain.Event{TokenRefreshed{
		UserID: s.UserID, Integration: s.Integration, Account: s.Account, Credential: c.Credential, ExpiresAt: expires,
		RefreshedAt: at, KeptOldRefreshToken: c.KeptOldRefreshToken,
	}}, nil
}
