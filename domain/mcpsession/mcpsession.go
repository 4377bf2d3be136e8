// Package mcpsession records the end of an MCP session (a DELETE of its Mcp-Session-Id), so that every
// replica stops honouring it, not only the one that answered the DELETE. Session ids are otherwise
// self-contained and signed; only their early end is state.
package mcpsession

import (
	"time"

	"github.com/workbench/workbench/domain"
)

// TypeSessionEnded names the event in the log.
const TypeSessionEnded = "mcp.session_ended"

// StreamName is the stream of one session's end; it holds one event at most.
func StreamName(sessionID string) string { return "mcp-session-" + sessionID }

// SessionEnded says a session may no longer be used. ExpiresAt is when it would have lapsed anyway, after
// which nobody needs to remember it.
type SessionEnded struct {
	SessionID string    `json:"session_id"`
	ExpiresAt time.Time `json:"expires_at"`
	At        time.Time `json:"at"`
}

// EventType implements domain.Event.
func (SessionEnded) EventType() string { return TypeSessionEnded }

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event { return []domain.Event{SessionEnded{}} }

// Validate checks an event before it is appended.
func (e SessionEnded) Validate() error {
	switch {
	case e.SessionID == "" || len(e.SessionID) > 128:
		return domain.Errorf(domain.CodeInvalid, "session ended: bad session id")
	case e.ExpiresAt.IsZero() || e.At.IsZero():
		return domain.Errorf(domain.CodeInvalid, "session ended: times missing")
	}
	return nil
}
