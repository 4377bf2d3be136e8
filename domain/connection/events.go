package connection

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeStarted                 = "connection.started"
	TypePendingExpired          = "connection.pending_expired"
	TypeConnected               = "connection.connected"
	TypeTokenRefreshed          = "connection.token_refreshed"
	TypeReauthorizationRequired = "connection.reauthorization_required"
	TypeDisconnected            = "connection.disconnected"
	TypeDefaultChosen           = "connection.default_chosen"
)

// Every event names its user, integration and account, so that projections and the
// wait_for_connection waiter never have to parse stream names. Account is the label of the account,
// empty for DefaultAccount: the default account's events read as every event written before accounts
// existed.

// Started opens a connect attempt: a claim link the user must redeem before ExpiresAt. AttemptID is
// the connectionId an agent waits on.
type Started struct {
	AttemptID   uuid.UUID `json:"attempt_id"`
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Account     string    `json:"account,omitempty"`
	AuthMode    AuthMode  `json:"auth_mode"`
	StartedAt   time.Time `json:"started_at"`
	ExpiresAt   time.Time `json:"expires_at"`
}

// PendingExpired ends an attempt that did not connect. Its waiter reports EXPIRED.
type PendingExpired struct {
	AttemptID   uuid.UUID    `json:"attempt_id"`
	UserID      uuid.UUID    `json:"user_id"`
	Integration string       `json:"integration"`
	Account     string       `json:"account,omitempty"`
	Reason      ExpiryReason `json:"reason"`
	At          time.Time    `json:"at"`
}

// Connected stores a credential. AttemptID is the attempt it completes, or zero for a direct connect
// (an API key or cookie bundle posted from the portal with no attempt pending). ExpiresAt is the
// credential's expiry, zero when it never expires.
type Connected struct {
	AttemptID   uuid.UUID     `json:"attempt_id,omitzero"`
	UserID      uuid.UUID     `json:"user_id"`
	Integration string        `json:"integration"`
	Account     string        `json:"account,omitempty"`
	AuthMode    AuthMode      `json:"auth_mode"`
	Credential  domain.Sealed `json:"credential"`
	ExpiresAt   time.Time     `json:"expires_at,omitzero"`
	Scopes      []string      `json:"scopes,omitempty"`
	AccountHint string        `json:"account_hint,omitempty"`
	ConnectedAt time.Time     `json:"connected_at"`
}

// TokenRefreshed replaces the credential after a refresh_token grant. KeptOldRefreshToken says the
// provider sent no new refresh token, so the sealed document carries the old one over (RFC 6749
// section 6 lets the server keep the refresh token unchanged).
type TokenRefreshed struct {
	UserID              uuid.UUID     `json:"user_id"`
	Integration         string        `json:"integration"`
	Account             string        `json:"account,omitempty"`
	Credential          domain.Sealed `json:"credential"`
	ExpiresAt           time.Time     `json:"expires_at,omitzero"`
	RefreshedAt         time.Time     `json:"refreshed_at"`
	KeptOldRefreshToken bool          `json:"kept_old_refresh_token,omitempty"`
}

// ReauthorizationRequired withdraws a credential the provider no longer honours (a refresh answered
// invalid_grant, RFC 6749 section 5.2). Tool calls answer NOT_CONNECTED until the user reconnects.
type ReauthorizationRequired struct {
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Account     string    `json:"account,omitempty"`
	Reason      string    `json:"reason"`
	At          time.Time `json:"at"`
}

// Disconnected removes the credential at the user's (or an operator's) request.
type Disconnected struct {
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Account     string    `json:"account,omitempty"`
	Reason      string    `json:"reason,omitempty"`
	At          time.Time `json:"at"`
}

func (Started) EventType() string                 { return TypeStarted }
func (PendingExpired) EventType() string          { return TypePendingExpired }
func (Connected) EventType() string               { return TypeConnected }
func (TokenRefreshed) EventType() string          { return TypeTokenRefreshed }
func (ReauthorizationRequired) EventType() string { return TypeReauthorizationRequired }
func (Disconnected) EventType() string            { return TypeDisconnected }
func (DefaultChosen) EventType() string           { return TypeDefaultChosen }

// DefaultChosen makes this account the one a call without an account label uses (see DefaultOf).
type DefaultChosen struct {
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	Account     string    `json:"account,omitempty"`
	At          time.Time `json:"at"`
}

// Events returns a zero value of every event type of this package, for building a codec:
// eventstore.NewJSONCodec(connection.Events()...).
func Events() []domain.Event {
	return []domain.Event{
		Started{},
		PendingExpired{},
		Connected{},
		TokenRefreshed{},
		ReauthorizationRequired{},
		Disconnected{},
		DefaultChosen{},
	}
}
