package execution

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// TypeRequestRelayed names the event in the log.
const TypeRequestRelayed = "execution.request_relayed"

// RelayStreamName is the stream of one relayed request (each its own, appended with NoStream, so
// the execution's own stream keeps its one ToolExecuted).
func RelayStreamName(id uuid.UUID) string { return "execution-relay-" + id.String() }

// Relay outcomes.
const (
	RelayAccept  = "accept"  // the user accepted (elicitation), or the client answered (sampling, roots)
	RelayDecline = "decline" // elicitation declined
	RelayCancel  = "cancel"  // elicitation dismissed
	RelayError   = "error"   // the client answered an error (a refused sampling included)
	RelayTimeout = "timeout" // no answer within the call's time
)

// RequestRelayed is one request a remote MCP server sent during an execution (elicitation/create,
// sampling/createMessage, roots/list) that Workbench passed on to the agent's client: who asked
// (the execution's integration and tool), for whom, what kind of request, and the answer's outcome.
// The request and the answer are never copied: the request's size and digest prove what was asked.
type RequestRelayed struct {
	RelayID     uuid.UUID `json:"relay_id"`
	ExecutionID uuid.UUID `json:"execution_id"`
	UserID      uuid.UUID `json:"user_id"`
	Via         string    `json:"via"`
	ClientID    string    `json:"client_id,omitempty"`
	AgentID     uuid.UUID `json:"agent_id,omitzero"`
	Integration string    `json:"integration"`
	Tool        string    `json:"tool"`
	Method      string    `json:"method"`
	// Mode is an elicitation's mode: "form" or "url" (empty for other methods).
	Mode          string    `json:"mode,omitempty"`
	Outcome       string    `json:"outcome"`
	RequestSize   int       `json:"request_size"`
	RequestSHA256 string    `json:"request_sha256"`
	At            time.Time `json:"at"`
}

// EventType implements domain.Event.
func (RequestRelayed) EventType() string { return TypeRequestRelayed }

// Validate checks that an event is complete before it is appended.
func (e RequestRelayed) Validate() error {
	switch {
	case e.RelayID == uuid.Nil || e.ExecutionID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request relayed: no id")
	case e.UserID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "request relayed: no user")
	case e.Method == "" || e.Outcome == "":
		return domain.Errorf(domain.CodeInvalid, "request relayed: no method or outcome")
	case e.At.IsZero():
		return domain.Errorf(domain.CodeInvalid, "request relayed: no time")
	case len(e.RequestSHA256) != 64:
		return domain.Errorf(domain.CodeInvalid, "request relayed: no request digest")
	}
	return nil
}
