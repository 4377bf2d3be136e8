package browserdom

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeSessionStarted       = "browser.session_started"
	TypeSessionStopped       = "browser.session_stopped"
	TypeSessionReset         = "browser.session_reset"
	TypeCookiesCaptured      = "browser.cookies_captured"
	TypeControlHandedOver    = "browser.control_handed_over"
	TypeControlTakenBack     = "browser.control_taken_back"
	streamPrefix             = "browser-session-"
	maxReasonLen, maxNameLen = 64, 128
)

// Stop reasons of BrowserSessionStopped.
const (
	StopIdle        = "idle"
	StopMemoryLimit = "memory_limit"
	StopShutdown    = "shutdown"
	StopCrashed     = "crashed"
)

// StreamName is the stream of one user's browser session.
func StreamName(user uuid.UUID) string { return streamPrefix + user.String() }

// BrowserSessionStarted: a Chromium was spawned for the user. Restart is set when it replaces one that
// crashed.
type BrowserSessionStarted struct {
	UserID  uuid.UUID `json:"user_id"`
	PID     int       `json:"pid"`
	Restart bool      `json:"restart,omitempty"`
	SpawnMS int64     `json:"spawn_ms"`
	At      time.Time `json:"at"`
	// Replica is the base URL of the replica whose Chromium holds the session (WORKBENCH_REPLICA_URL);
	// the other replicas forward the user's browser calls there. Empty in events from before it was
	// recorded.
	Replica string `json:"replica,omitempty"`
}

// BrowserSessionStopped: the user's Chromium was closed (idle, memory_limit, shutdown) or died (crashed).
// The profile is kept.
type BrowserSessionStopped struct {
	UserID uuid.UUID `json:"user_id"`
	Reason string    `json:"reason"`
	// MemoryBytes is what the session held when it was closed for memory_limit.
	MemoryBytes int64     `json:"memory_bytes,omitempty"`
	At          time.Time `json:"at"`
	// Replica is the replica whose Chromium stopped (WORKBENCH_REPLICA_URL); empty in events from
	// before it was recorded.
	Replica string `json:"replica,omitempty"`
}

// BrowserSessionReset: the user's Chromium was closed and its profile (cookies, storage) wiped.
type BrowserSessionReset struct {
	UserID uuid.UUID `json:"user_id"`
	At     time.Time `json:"at"`
}

// BrowserCookiesCaptured: the cookies of a cookie integration's declared domains were taken from the
// user's session (sealed and stored with the connection, never here). Count and ExpiresAt describe the
// bundle: its number of cookies and when the last of them expires.
type BrowserCookiesCaptured struct {
	UserID      uuid.UUID `json:"user_id"`
	Integration string    `json:"integration"`
	// Account is the label of the account the bundle was stored as (empty: the default account's).
	Account      string    `json:"account,omitempty"`
	ConnectionID uuid.UUID `json:"connection_id,omitempty"`
	Domains      []string  `json:"domains"`
	Count        int       `json:"count"`
	ExpiresAt    time.Time `json:"expires_at,omitzero"`
	At           time.Time `json:"at"`
}

// BrowserControlHandedOver: a person took control of the session through the live view; the browser
// tools answer HUMAN_IN_CONTROL until control is taken back.
type BrowserControlHandedOver struct {
	UserID uuid.UUID `json:"user_id"`
	At     time.Time `json:"at"`
}

// BrowserControlTakenBack: control returned to the agent.
type BrowserControlTakenBack struct {
	UserID uuid.UUID `json:"user_id"`
	At     time.Time `json:"at"`
}

// EventType implements domain.Event.
func (BrowserSessionStarted) EventType() string    { return TypeSessionStarted }
func (BrowserSessionStopped) EventType() string    { return TypeSessionStopped }
func (BrowserSessionReset) EventType() string      { return TypeSessionReset }
func (BrowserCookiesCaptured) EventType() string   { return TypeCookiesCaptured }
func (BrowserControlHandedOver) EventType() string { return TypeControlHandedOver }
func (BrowserControlTakenBack) EventType() string  { return TypeControlTakenBack }

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event {
	return []domain.Event{
		BrowserSessionStarted{}, BrowserSessionStopped{}, BrowserSessionReset{},
		BrowserCookiesCaptured{}, BrowserControlHandedOver{}, BrowserControlTakenBack{},
	}
}

func invalid(what, msg string) error {
	return domain.Errorf(domain.CodeInvalid, "browser %s: %s", what, msg)
}

// Validate checks the event is complete.
func (e BrowserSessionStarted) Validate() error {
	switch {
	case e.UserID == uuid.Nil:
		return invalid("session started", "no user")
	case e.PID <= 0:
		return invalid("session started", "no process id")
	case e.SpawnMS < 0:
		return invalid("session started", "negative spawn time")
	case len(e.Replica) > 2048:
		return invalid("session started", "replica URL too long")
	case e.At.IsZero():
		return invalid("session started", "no time")
	}
	return nil
}

// Validate checks the event is complete.
func (e BrowserSessionStopped) Validate() error {
	switch {
	case e.UserID == uuid.Nil:
		return invalid("session stopped", "no user")
	case e.Reason != StopIdle && e.Reason != StopMemoryLimit && e.Reason != StopShutdown && e.Reason != StopCrashed:
		return invalid("session stopped", "reason must be idle, memory_limit, shutdown or crashed")
	case len(e.Replica) > 2048:
		return invalid("session stopped", "replica URL too long")
	case e.At.IsZero():
		return invalid("session stopped", "no time")
	}
	return nil
}

// Validate checks the event is complete.
func (e BrowserSessionReset) Validate() error {
	switch {
	case e.UserID == uuid.Nil:
		return invalid("session reset", "no user")
	case e.At.IsZero():
		return invalid("session reset", "no time")
	}
	return nil
}

// Validate checks the event is complete.
func (e BrowserCookiesCaptured) Validate() error {
	switch {
	case e.UserID == uuid.Nil:
		return invalid("cookies captured", "no user")
	case e.Integration == "" || len(e.Integration) > maxNameLen:
		return invalid("cookies captured", "bad integration name")
	case len(e.Domains) == 0:
		return invalid("cookies captured", "no domains")
	case e.Count < 0:
		return invalid("cookies captured", "negative count")
	case e.At.IsZero():
		return invalid("cookies captured", "no time")
	}
	return nil
}

// Validate checks the event is complete.
func (e BrowserControlHandedOver) Validate() error {
	if e.UserID == uuid.Nil || e.At.IsZero() {
		return invalid("control handed over", "user and time are required")
	}
	return nil
}

// Validate checks the event is complete.
func (e BrowserControlTakenBack) Validate() error {
	if e.UserID == uuid.Nil || e.At.IsZero() {
		return invalid("control taken back", "user and time are required")
	}
	return nil
}
