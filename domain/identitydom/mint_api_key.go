package identitydom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// MintAPIKey gives an agent of the user that has no live key a new one. Make the secret with
// NewAPIKey; only its hash and display prefix travel here, with the sealed secret when the owner may
// reveal it later. An agent with a live key rotates it instead (each agent has one key). That the agent
// exists and belongs to the user is the caller's check (app/accounts): it lives in another aggregate.
type MintAPIKey struct {
	// AgentID is the agent the key acts as; uuid.Nil means the user's default agent.
	AgentID uuid.UUID
	KeyID   uuid.UUID
	Hash    string        // HashAPIKey(secret)
	Prefix  string        // DisplayPrefix(secret)
	Sealed  domain.Sealed // optional: the secret sealed under the user's data key (subject = user id)
	At      time.Time
}

func (c MintAPIKey) decide(s State) ([]domain.Event, error) {
	const what = "mint api key"
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
	if live, ok := s.LiveKeyFor(c.AgentID); ok {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the agent already has a live key (%s); rotate it instead", what, live.Prefix)
	}
	if err := k.unused(what, s); err != nil {
		return nil, err
	}
	return []domain.Event{APIKeyMinted{
		UserID: s.UserID, AgentID: eventAgent(s.UserID, keyAgent(s.UserID, c.AgentID)), KeyID: c.KeyID, Hash: c.Hash, Prefix: c.Prefix, Sealed: c.Sealed, MintedAt: at,
	}}, nil
}
