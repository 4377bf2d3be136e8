// Package approval is a person's approval of one tool call that a switch set to Ask holds back
// (policy: a switch's third state). An approval is requested for one call, bound to its tool, its
// arguments (their canonical digest), its account and its agent; a person approves or denies it (in
// the portal, or through the agent's MCP client when it can ask its user); an approved call runs
// once, and then the approval is used; an approval nobody decided or used in time expires. Each
// approval is a stream of its own (StreamName), folded by Evolve and decided by Decide; every change
// is an event, none is rewritten.
package approval

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeRequested = "approval.requested"
	TypeApproved  = "approval.approved"
	TypeDenied    = "approval.denied"
	TypeExpired   = "approval.expired"
	TypeUsed      = "approval.used"
)

// DefaultTTL is how long an approval waits for a decision, and then an approved one for its call.
const DefaultTTL = 10 * time.Minute

// How a decision was made.
const (
	ViaPortal      = "portal"      // a person in the portal
	ViaElicitation = "elicitation" // the agent's MCP client asked its user (elicitation/create)
)

// StreamName is the stream of one approval.
func StreamName(id uuid.UUID) string { return "approval-" + id.String() }

// Binding is what an approval is for: the one call it lets run.
type Binding struct {
	UserID      uuid.UUID `json:"user_id"`
	AgentID     uuid.UUID `json:"agent_id,omitzero"`
	Tool        string    `json:"tool"`
	Integration string    `json:"integration"`
	// Account is the label of the account the call uses, empty for the default label.
	Account string `json:"account,omitempty"`
	// ArgsSHA256 is the digest of the call's arguments in canonical JSON.
	ArgsSHA256 string `json:"args_sha256"`
}

// Requested holds one call back for a person's decision. Arguments are the call's arguments,
// redacted and sealed under the user's key (erasing the user shreds them), for the person to read.
type Requested struct {
	ApprovalID uuid.UUID `json:"approval_id"`
	Binding
	ClientID  string        `json:"client_id,omitempty"`
	Arguments domain.Sealed `json:"arguments"`
	ExpiresAt time.Time     `json:"expires_at"`
	At        time.Time     `json:"at"`
}

// Approved lets the call run once. Always: the person also switched the tool On for the agent (the
// switch is its own event).
type Approved struct {
	ApprovalID uuid.UUID `json:"approval_id"`
	// UserID, Tool and Integration repeat the request's, so that each event reads on its own (audit).
	UserID      uuid.UUID `json:"user_id"`
	Tool        string    `json:"tool"`
	Integration string    `json:"integration"`
	By          uuid.UUID `json:"by"`
	Via         string    `json:"via"`
	Always      bool      `json:"always,omitempty"`
	At          time.Time `json:"at"`
}

// Denied refuses the call.
type Denied struct {
	ApprovalID uuid.UUID `json:"approval_id"`
	// UserID, Tool and Integration repeat the request's, so that each event reads on its own (audit).
	UserID      uuid.UUID `json:"user_id"`
	Tool        string    `json:"tool"`
	Integration string    `json:"integration"`
	By          uuid.UUID `json:"by"`
	Via         string    `json:"via"`
	At          time.Time `json:"at"`
}

// Expired ends an approval nobody decided, or nobody used, in time.
type Expired struct {
	ApprovalID uuid.UUID `json:"approval_id"`
	// UserID, Tool and Integration repeat the request's, so that each event reads on its own (audit).
	UserID      uuid.UUID `json:"user_id"`
	Tool        string    `json:"tool"`
	Integration string    `json:"integration"`
	At          time.Time `json:"at"`
}

// Used records that the approved call ran (ExecutionID is its execution record's).
type Used struct {
	ApprovalID  uuid.UUID `json:"approval_id"`
	UserID      uuid.UUID `json:"user_id"`
	Tool        string    `json:"tool"`
	Integration string    `json:"integration"`
	ExecutionID uuid.UUID `json:"execution_id"`
	At          time.Time `json:"at"`
}

func (Requested) EventType() string { return TypeRequested }
func (Approved) EventType() string  { return TypeApproved }
func (Denied) EventType() string    { return TypeDenied }
func (Expired) EventType() string   { return TypeExpired }
func (Used) EventType() string      { return TypeUsed }

// Events lists the event types, for a codec.
func Events() []domain.Event {
	return []domain.Event{Requested{}, Approved{}, Denied{}, Expired{}, Used{}}
}

// Status of an approval.
type Status string

const (
	StatusPending  Status = "pending"
	StatusApproved Status = "approved"
	StatusDenied   Status = "denied"
	StatusExpired  Status = "expired"
	StatusUsed     Status = "used"
)

// State is an approval's stream folded.
type State struct {
	Requested
	Status    Status
	DecidedBy uuid.UUID
	Via       string
	Always    bool
	DecidedAt time.Time
}

// Exists reports whether the approval was requested.
func (s State) Exists() bool { return s.ApprovalID != uuid.Nil }

// Initial is the state of an empty stream.
func Initial() State { return State{} }

// StatusAt is the status at a time: a pending or approved approval past its expiry is expired, with
// or without its Expired event.
func (s State) StatusAt(now time.Time) Status {
	if (s.Status == StatusPending || s.Status == StatusApproved) && !now.Before(s.ExpiresAt) {
		return StatusExpired
	}
	return s.Status
}

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Requested:
		s = State{Requested: ev, Status: StatusPending}
	case Approved:
		s.Status, s.DecidedBy, s.Via, s.Always, s.DecidedAt = StatusApproved, ev.By, ev.Via, ev.Always, ev.At
	case Denied:
		s.Status, s.DecidedBy, s.Via, s.DecidedAt = StatusDenied, ev.By, ev.Via, ev.At
	case Expired:
		s.Status = StatusExpired
	case Used:
		s.Status = StatusUsed
	}
	return s
}

// Command changes an approval: Request, Approve, Deny, Expire or Use.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into events or refuses it with a *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// Request opens an approval.
type Request struct {
	Event Requested
}

func (c Request) decide(s State) ([]domain.Event, error) {
	e := c.Event
	if s.Exists() {
		return nil, domain.Errorf(domain.CodeConflict, "approval %s exists", e.ApprovalID)
	}
	if e.ApprovalID == uuid.Nil || e.UserID == uuid.Nil || e.Tool == "" || e.Integration == "" || e.ArgsSHA256 == "" || e.At.IsZero() || !e.ExpiresAt.After(e.At) {
		return nil, domain.Errorf(domain.CodeInvalid, "request an approval: no id, user, tool, integration, digest or times")
	}
	e.At, e.ExpiresAt = e.At.UTC(), e.ExpiresAt.UTC()
	return []domain.Event{e}, nil
}

// Approve lets the call run once.
type Approve struct {
	By     uuid.UUID
	Via    string
	Always bool
	At     time.Time
}

func (c Approve) decide(s State) ([]domain.Event, error) {
	if err := pending(s, c.At); err != nil {
		return nil, err
	}
	if c.By == uuid.Nil || (c.Via != ViaPortal && c.Via != ViaElicitation) {
		return nil, domain.Errorf(domain.CodeInvalid, "approve: no person or way")
	}
	return []domain.Event{Approved{ApprovalID: s.ApprovalID, UserID: s.UserID, Tool: s.Tool, Integration: s.Integration, By: c.By, Via: c.Via, Always: c.Always, At: c.At.UTC()}}, nil
}

// Deny refuses the call.
type Deny struct {
	By  uuid.UUID
	Via string
	At  time.Time
}

func (c Deny) decide(s State) ([]domain.Event, error) {
	if err := pending(s, c.At); err != nil {
		return nil, err
	}
	if c.By == uuid.Nil || (c.Via != ViaPortal && c.Via != ViaElicitation) {
		return nil, domain.Errorf(domain.CodeInvalid, "deny: no person or way")
	}
	return []domain.Event{Denied{ApprovalID: s.ApprovalID, UserID: s.UserID, Tool: s.Tool, Integration: s.Integration, By: c.By, Via: c.Via, At: c.At.UTC()}}, nil
}

// pending refuses a decision over an approval that is not waiting for one.
func pending(s State, at time.Time) error {
	if !s.Exists() {
		return domain.Errorf(domain.CodeNotFound, "no such approval")
	}
	if at.IsZero() {
		return domain.Errorf(domain.CodeInvalid, "decide an approval: no time")
	}
	if st := s.StatusAt(at); st != StatusPending {
		return domain.Errorf(domain.CodeConflict, "this approval is %s; it can no longer be decided", st)
	}
	return nil
}

// Expire records an expiry that has passed (nothing when it is recorded already, or decided
// otherwise).
type Expire struct {
	At time.Time
}

func (c Expire) decide(s State) ([]domain.Event, error) {
	if !s.Exists() {
		return nil, domain.Errorf(domain.CodeNotFound, "no such approval")
	}
	if s.Status == StatusExpired || s.StatusAt(c.At) != StatusExpired {
		return nil, nil
	}
	return []domain.Event{Expired{ApprovalID: s.ApprovalID, UserID: s.UserID, Tool: s.Tool, Integration: s.Integration, At: c.At.UTC()}}, nil
}

// Use spends an approved approval on the call it is bound to.
type Use struct {
	Binding     Binding
	ExecutionID uuid.UUID
	At          time.Time
}

func (c Use) decide(s State) ([]domain.Event, error) {
	if !s.Exists() {
		return nil, domain.Errorf(domain.CodeNotFound, "no such approval")
	}
	if s.Binding != c.Binding {
		return nil, domain.Errorf(domain.CodeInvalid, "this approval is for another call (%s with other arguments, account or agent); ask again without approval_id", s.Tool)
	}
	if c.At.IsZero() || c.ExecutionID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "use an approval: no time or execution")
	}
	if st := s.StatusAt(c.At); st != StatusApproved {
		return nil, domain.Errorf(domain.CodeConflict, "this approval is %s", st)
	}
	return []domain.Event{Used{ApprovalID: s.ApprovalID, UserID: s.UserID, Tool: s.Tool, Integration: s.Integration, ExecutionID: c.ExecutionID, At: c.At.UTC()}}, nil
}
