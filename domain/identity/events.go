package identity

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
type UserCreated struct {
	UserID uuid.UUID `json:"user_id"`
	// Email is normalised (trimmed, lower case) and valid; see NormalizeEmail.
	Email       string    `json:"email"`
	DisplayName string    `json:"display_name,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

// EmailClaimed is the only event of an email stream: the address belongs to UserID from now on. It is
// appended to a stream that must not exist yet, which is what makes addresses unique without a read
// model (see doc.go for the two-step create).
type EmailClaimed struct {
	Email     string    `json:"email"`
	UserID    uuid.UUID `json:"user_id"`
	ClaimedAt time.Time `json:"claimed_at"`
}

// APIKeyMinted records a user's new workbench API key. Only the hash authenticates; the prefix is for
// display; Sealed (optional) lets the owner reveal the key later and is sealed under the user's data
// key, so shredding the user shreds it.
type APIKeyMinted struct {
	UserID   uuid.UUID     `json:"user_id"`
	KeyID    uuid.UUID     `json:"key_id"`
	Hash     string        `json:"hash"`
	Prefix   string        `json:"prefix"`
	Sealed   domain.Sealed `json:"sealed,omitzero"`
	MintedAt time.Time     `json:"minted_at"`
}

// APIKeyRotated replaces the live key with a new one in one fact: from this event on the old key no
// longer authenticates and the new one does.
type APIKeyRotated struct {
	UserID    uuid.UUID     `json:"user_id"`
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
