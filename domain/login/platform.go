package login

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// SyncPlatform keeps the platform login of a connector whose manifest names auth.instance (spec
// connectors.md, Platform logins): while its platform key is set (KeySet) the login exists and is
// connected, holding Credential, an empty sealed payload (the key is read at call time and never
// stored on the login); while it is unset the login is disconnected. A login already in the wanted
// status records nothing, so the sync is idempotent and replicas running it at once agree.
type SyncPlatform struct {
	NewLoginID uuid.UUID
	ServerID   string
	KeySet     bool
	Credential domain.Sealed
	Reason     string
	At         time.Time
}

func (c SyncPlatform) decide(s State) ([]domain.Event, error) {
	platform := Owner{Scope: ScopePlatform}
	if c.ServerID == "" || c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "platform login: no connector or time")
	}
	if s.Exists() && (s.ServerID != c.ServerID || s.Owner != platform) {
		return nil, domain.Errorf(domain.CodeInvalid, "platform login: the command names another login")
	}
	if !c.KeySet {
		if !s.Exists() || s.Status != StatusConnected {
			return nil, nil
		}
		return []domain.Event{Disconnected{LoginID: s.LoginID, ServerID: s.ServerID, Owner: platform, Reason: c.Reason, At: c.At.UTC()}}, nil
	}
	if s.Exists() && s.Status == StatusConnected {
		return nil, nil
	}
	id, cred := s.LoginID, s.Credential
	if id == uuid.Nil {
		id = c.NewLoginID
	}
	if cred.IsZero() {
		cred = c.Credential
	}
	if id == uuid.Nil || cred.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "platform login: no login id or sealed payload")
	}
	return []domain.Event{Connected{LoginID: id, ServerID: c.ServerID, Owner: platform, Credential: cred, Status: StatusConnected, At: c.At.UTC()}}, nil
}
