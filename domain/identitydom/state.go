package identitydom

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// StreamName is the stream of one user: "user-<uuid>".
func StreamName(userID uuid.UUID) string { return "user-" + userID.String() }

// KeyRetirement says how a key stopped authenticating.
type KeyRetirement string

const (
	KeyLive    KeyRetirement = ""        // still authenticates
	KeyRotated KeyRetirement = "rotated" // replaced by a newer key
	KeyRevoked KeyRetirement = "revoked" // revoked without a replacement
)

// APIKey is one workbench API key of a user as the log knows it: never the secret, only its hash.
type APIKey struct {
	KeyID uuid.UUID
	// AgentID is the agent the key acts as, never uuid.Nil: a key event that names no agent belongs to
	// the user's default agent (DefaultAgentID).
	AgentID   uuid.UUID
	Hash      string
	Prefix    string
	Sealed    domain.Sealed
	MintedAt  time.Time
	Retired   KeyRetirement
	RetiredAt time.Time
}

// Live reports whether the key still authenticates.
func (k APIKey) Live() bool { return k.Retired == KeyLive }

// State is one user folded from their stream. The zero State (Initial) is a user that does not exist.
type State struct {
	UserID      uuid.UUID
	Email       string
	DisplayName string
	CreatedAt   time.Time
	// Profile is the sealed email and display name of a user created with one (Email and DisplayName
	// are then empty until someone with the vault opens it).
	Profile domain.Sealed
	// Erased is set by identity.user_erased: Email then holds the pseudonym, DisplayName is empty, and no
	// key is live.
	Erased bool
	// Keys holds every key the user ever had, oldest first. At most one per agent is live (each agent
	// has one workbench API key; a user who made no agent has only the default agent's).
	Keys []APIKey
}

// Initial is the state of a user stream with no events.
func Initial() State { return State{} }

// Exists reports whether the user has been created.
func (s State) Exists() bool { return s.UserID != uuid.Nil }

// LiveKey returns the default agent's key that currently authenticates, if any.
func (s State) LiveKey() (APIKey, bool) { return s.LiveKeyFor(DefaultAgentID(s.UserID)) }

// LiveKeyFor returns the agent's key that currently authenticates, if any (uuid.Nil: the default
// agent).
func (s State) LiveKeyFor(agent uuid.UUID) (APIKey, bool) {
	agent = keyAgent(s.UserID, agent)
	for i := len(s.Keys) - 1; i >= 0; i-- {
		if k := s.Keys[i]; k.Live() && k.AgentID == agent {
			return k, true
		}
	}
	return APIKey{}, false
}

// LiveKeys returns every key that authenticates now, one per agent at most, oldest first.
func (s State) LiveKeys() []APIKey {
	var out []APIKey
	for _, k := range s.Keys {
		if k.Live() {
			out = append(out, k)
		}
	}
	return out
}

// Key returns the key with the given id, live or retired.
func (s State) Key(id uuid.UUID) (APIKey, bool) {
	for _, k := range s.Keys {
		if k.KeyID == id {
			return k, true
		}
	}
	return APIKey{}, false
}

// Authenticate reports whether secret is one of the user's live keys, comparing hashes in constant
// time.
func (s State) Authenticate(secret string) (APIKey, bool) {
	for _, k := range s.LiveKeys() {
		if VerifyAPIKey(secret, k.Hash) {
			return k, true
		}
	}
	return APIKey{}, false
}

// Evolve folds one event into the state. It never fails: events are facts. Events of other types
// (email claims, future types) leave the state as it is. The Keys slice is copied before it changes, so
// a state handed out earlier never sees later events.
func Evolve(s State, ev domain.Event) State {
	switch e := ev.(type) {
	case UserCreated:
		s.UserID = e.UserID
		s.Email = e.Email
		s.DisplayName = e.DisplayName
		s.Profile = e.Profile
		s.CreatedAt = e.CreatedAt
	case APIKeyMinted:
		s.Keys = append(slices.Clip(s.Keys), APIKey{
			KeyID: e.KeyID, AgentID: keyAgent(e.UserID, e.AgentID), Hash: e.Hash, Prefix: e.Prefix, Sealed: e.Sealed, MintedAt: e.MintedAt,
		})
	case APIKeyRotated:
		s.Keys = retire(s.Keys, e.OldKeyID, KeyRotated, e.RotatedAt)
		s.Keys = append(s.Keys, APIKey{
			KeyID: e.KeyID, AgentID: keyAgent(e.UserID, e.AgentID), Hash: e.Hash, Prefix: e.Prefix, Sealed: e.Sealed, MintedAt: e.RotatedAt,
		})
	case APIKeyRevoked:
		s.Keys = retire(s.Keys, e.KeyID, KeyRevoked, e.RevokedAt)
	case UserErased:
		s.Email, s.DisplayName, s.Profile, s.Erased = e.Pseudonym, "", domain.Sealed{}, true
		if live, ok := s.LiveKey(); ok {
			s.Keys = retire(s.Keys, live.KeyID, KeyRevoked, e.ErasedAt)
		}
	}
	return s
}

// retire returns a copy of keys with the live key id marked retired.
func retire(keys []APIKey, id uuid.UUID, how KeyRetirement, at time.Time) []APIKey {
	out := slices.Clone(keys)
	for i := range out {
		if out[i].KeyID == id && out[i].Live() {
			out[i].Retired = how
			out[i].RetiredAt = at
		}
	}
	return slices.Clip(out)
}
