package portalsession

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event types in the log.
const (
	TypeSessionEnded     = "portal.session_ended"
	TypeAllSessionsEnded = "portal.all_sessions_ended"
)

// StreamName is the stream of a user's ended portal sessions.
func StreamName(user uuid.UUID) string { return "portal-sessions-" + user.String() }

// SessionEnded says one session may no longer be used.
type SessionEnded struct {
	UserID    uuid.UUID `json:"user_id"`
	SessionID uuid.UUID `json:"session_id"`
	ExpiresAt time.Time `json:"expires_at"`
	At        time.Time `json:"at"`
}

// AllSessionsEnded says every session of the user issued at or before At may no longer be used.
type AllSessionsEnded struct {
	UserID uuid.UUID `json:"user_id"`
	At     time.Time `json:"at"`
}

// EventType implements domain.Event.
func (SessionEnded) EventType() string { return TypeSessionEnded }

// EventType implements domain.Event.
func (AllSessionsEnded) EventType() string { return TypeAllSessionsEnded }

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event { return []domain.Event{SessionEnded{}, AllSessionsEnded{}} }
