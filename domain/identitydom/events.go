package identitydom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeUserCreated   = "identity.user_created"
	TypeEmailClaimed  = "identity.email_claimed"
	TypeAPIKeyMinted  = "identity.api_key_minted"
	TypeAPIKeyRotated = "identity.api_key_rotated"
	TypeAPIKeyRevoked = "identity.api_key_revoked"
)

// UserCreated is the first event of a user stream.
//
// Users created since erasure exists carry their email and display name only in Profile, sealed under
// the user's own data key (see doc.go, "Personal data in events"), and leave Email and DisplayName
// empty; older events carry them in clear. Readers take Email when it is set and open Profile
// otherwise (OpenProfile beside a vault).
type UserCreated struct {
	UserID uuid.UUID `json:"user_id"`
	// Email is normalised (trimmed, lower case) and valid; see NormalizeEmail. Empty when Profile is set.
	Email       string `json:"email,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
	// Profile is the sealed ProfileData (purpose ProfilePurpose, subject the user id).
	Profile   domain.Sealed `json:"profile,omitzero"`
	CreatedAt time.Time     `json:"created_at"`
}

// ProfilePurpose binds a sealed profile to its use.
const ProfilePurpose = "identity:profile"

// ProfileData is what UserCreated.Profile seals, as JSON.
type ProfileData struct {
	Email       string `json:"email"`
	DisplayName string `json:"display_name,omitempty"`
}

// EmailClaimed is the only event of an email stream: the address belongs to UserID from now on. It is
// appended to a stream that must not exist yet, which is what makes addresses unique without a read
// model (see doc.go for the two-step create). Claims recorded since erasure exists leave Email empty:
// the stream's name (a hash of the address) already says which address it is.
type EmailClaimed struct {
	Email     string    `json:"email,omitempty"`
	UserID    uuid.UUID `json:"user_id"`
	ClaimedAt time.Time `json:"claimed_at"`
}

// APIKeyMinted records a user's new workbench API key. Only the hash authenticates; the prefix is for
// display; Sealed (optional) lets the owner reveal the key later and is sealed under the user's data
// key, so shredding the user shreds it.
//
// AgentID is the agent the key acts as; uuid.Nil (omitted) is the user's default agent, which is what
// every key minted before agents existed belongs to.
type APIKeyMinted struct {
	UserID   uuid.UUID     `json:"user_id"`
	AgentID  uuid.UUID     `json:"agent_id,omitzero"`
	KeyID    uuid.UUID     `json:"key_id"`
	Hash     string        `json:"hash"`
	Prefix   string        `json:"prefix"`
	Sealed   domain.Sealed `json:"sealed,omitzero"`
	MintedAt time.Time     `json:"minted_at"`
}

// APIKeyRotated replaces an agent's live key with a new one in one fact: from this event on the old
// key no longer authenticates and the new one does. AgentID is as in APIKeyMinted.
type APIKeyRotated struct {
	UserID    uuid.UUID     `json:"user_id"`
	AgentID   uuid.UUID     `json:"agent_id,omitzero"`
	OldKeyID  uuid.UUID     `json:"old_key_id"`
	KeyID     uuid.UUID     `json:"key_id"`
	Hash      string        `json:"hash"`
	Prefix    string        `json:"prefix"`
	Sealed    domain.Sealed `json:"sealed,omitzero"`
	RotatedAt time.Time     `json:"rotated_at"`
}

// APIKeyRevoked retires the live key without a replacement.
type APIKeyRevoked struct {
	UserID    uuid.UUID `json:"user_id"`
	KeyID     uuid.UUID `json:"key_id"`
	RevokedAt time.Time `json:"revoked_at"`
}

func (UserCreated) EventType() string   { return TypeUserCreated }
func (EmailClaimed) EventType() string  { return TypeEmailClaimed }
func (APIKeyMinted) EventType() string  { return TypeAPIKeyMinted }
func (APIKeyRotated) EventType() string { return TypeAPIKeyRotated }
func (APIKeyRevoked) EventType() string { return TypeAPIKeyRevoked }

// Events returns a zero value of every event type of this package, user and email streams alike, for
// building a codec: eventstore.NewJSONCodec(identity.Events()...).
func Events() []domain.Event {
	return []domain.Event{
		UserCreated{},
		EmailClaimed{},
		APIKeyMinted{},
		APIKeyRotated{},
		APIKeyRevoked{},
		UserErased{},
	}
}
