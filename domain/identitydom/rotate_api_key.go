package identitydom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// RotateAPIKey replaces an agent's live key with a new one (from NewAPIKey) in one event: the old key
// stops authenticating exactly when the new one starts.
type RotateAPIKey struct {
	// AgentID is the agent whose key is rotated; uuid.Nil means the user's default agent.
	AgentID uuid.UUID
	// OldKeyID, when set, is the key the caller means to replace; if another key is live by now (a
	// concurrent rotation won), the command is a conflict rather than a silent second rotation.
	OldKeyID uuid.UUID
	KeyID    uuid.UUID
	Hash     string
	Prefix   string
	Sealed   domain.Sealed
	At       time.Time
}

func (c RotateAPIKey) decide(s State) ([]domain.Event, error) {
	const what = "rotate api key"
	k := keyFields{KeyID: c.KeyID, Hash: c.Hash, Prefix: c.Prefix, Sealed: c.Sealed}
	if err := k.check(what); err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if !s.Exists() {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: no such user", what)
	}
	if s.Erased {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the user was erased", what)
	}
	if err := k.sealedFor(what, s.UserID); err != nil {
		return nil, err
	}
	live, ok := s.LiveKeyFor(c.AgentID)
	if !ok {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the agent has no live key to rotate; mint one", what)
	}
	if c.OldKeyID != uuid.Nil && c.OldKeyID != live.KeyID {
		return nil, domain.Errorf(domain.CodeConflict, "%s: key %s is not the live key (the live key is %s)", what, c.OldKeyID, live.Prefix)
	}
	if err := k.unused(what, s); err != nil {
		return nil, err
	}
	return []domain.Event{APIKeyRotated{
		UserID: s.UserID, AgentID: eventAgent(s.UserID, live.AgentID), OldKeyID: live.KeyID,
		KeyID: c.KeyID, Hash: c.Hash, Prefix: c.Prefix, Sealed: c.Sealed, RotatedAt: at,
	}}, nil
}
