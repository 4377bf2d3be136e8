package identitydom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// RevokeAPIKey retires a key without a replacement.
type RevokeAPIKey struct {
	// KeyID names the key to revoke; uuid.Nil means AgentID's live key, whichever it is.
	KeyID uuid.UUID
	// AgentID, used when KeyID is uuid.Nil, is the agent whose live key is revoked; uuid.Nil means the
	// user's default agent.
	AgentID uuid.UUID
	At      time.Time
}

func (c RevokeAPIKey) decide(s State) ([]domain.Event, error) {
	const what = "revoke api key"
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if !s.Exists() {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: no such user", what)
	}
	var key APIKey
	if c.KeyID == uuid.Nil {
		live, ok := s.LiveKeyFor(c.AgentID)
		if !ok {
			return nil, domain.Errorf(domain.CodeConflict, "%s: the agent has no live key", what)
		}
		key = live
	} else {
		k, ok := s.Key(c.KeyID)
		if !ok {
			return nil, domain.Errorf(domain.CodeNotFound, "%s: the user has no key %s", what, c.KeyID)
		}
		switch k.Retired {
		case KeyRevoked:
			return nil, domain.Errorf(domain.CodeConflict, "%s: key %s was already revoked", what, k.Prefix)
		case KeyRotated:
			return nil, domain.Errorf(domain.CodeConflict, "%s: key %s was already rotated out and no longer authenticates", what, k.Prefix)
		}
		key = k
	}
	return []domain.Event{APIKeyRevoked{UserID: s.UserID, KeyID: key.KeyID, RevokedAt: at}}, nil
}
