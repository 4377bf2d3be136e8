// Package execution records tool executions: every plugin tool run through execute_tools is one
// ToolExecuted event, appended before its result is returned (fail closed: an execution whose record
// cannot be appended returns an error instead of its result). The event carries sizes and hashes of the
// arguments and the result (as returned to the agent: redacted), never their content, so the audit
// trail proves what was exchanged without holding a copy of it.
//
// Each execution is its own stream, StreamName(id), appended with NoStream: executions never contend
// with each other, and a retried append of the same execution cannot record it twice.
package execution

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// TypeToolExecuted names the event in the log.
const TypeToolExecuted = "execution.tool_executed"

// StreamName is the stream of one execution.
func StreamName(id uuid.UUID) string { return "execution-" + id.String() }

// ToolExecuted is one plugin tool run.
type ToolExecuted struct {
	ExecutionID uuid.UUID `json:"execution_id"`
	UserID      uuid.UUID `json:"user_id"`
	// Via is how the agent authenticated: api_key, oauth or session; or portal for a run a signed-in
	// user made on the portal's Try a tool page (handlers/tryhttp; no ClientID, AgentID the agent the
	// user chose to act as). ClientID is the API key id or the OAuth client id it came through.
	Via      string `json:"via"`
	ClientID string `json:"client_id,omitempty"`
	// AgentID is the agent the credential belongs to; uuid.Nil (absent from the JSON, as in every
	// record made before it was added) is the user's default agent, identity.DefaultAgentID(UserID).
	AgentID     uuid.UUID `json:"agent_id,omitzero"`
	Integration string    `json:"integration"`
	Tool        string    `json:"tool"`
	Success     bool      `json:"success"`
	// ErrorCode is empty on success: NOT_CONNECTED, INVALID_ARGUMENTS, TOOL_ERROR, UNKNOWN_TOOL,
	// CANCELLED (the agent cancelled the call while it ran; records before it say TOOL_ERROR), TOOL_OFF
	// (switched Off for the agent; records before plugin tools had switches never say it),
	// APPROVAL_REQUIRED, APPROVAL_DENIED, APPROVAL_EXPIRED, APPROVAL_INVALID (a tool switched to Ask
	// held back; records before approvals never say them), ...
	ErrorCode string `json:"error_code,omitempty"`
	// ErrorDetail is the tool's own code inside a TOOL_ERROR, when its message names one
	// (HUMAN_IN_CONTROL: a person was driving the browser session); only the code, never the
	// message. Absent in every record made before it was added.
	ErrorDetail string `json:"error_detail,omitempty"`
	DurationMS  int64  `json:"duration_ms"`
	// ConnectionVersion is the version of the connection stream whose credential was used (0 when the
	// integration needs none).
	ConnectionVersion int64 `json:"connection_version,omitempty"`
	// Account is the label of the account whose credential was used when it is not the one labelled
	// "default" (connection.DefaultAccount): empty for the default label, for an integration that
	// needs no credential, and in every record made before a user could hold several accounts.
	Account      string    `json:"account,omitempty"`
	ArgsSize     int       `json:"args_size"`
	ArgsSHA256   string    `json:"args_sha256"`
	ResultSize   int       `json:"result_size"`
	ResultSHA256 string    `json:"result_sha256,omitempty"`
	At           time.Time `json:"at"`

	// Target is the host the call reached when its tool reports one (a browser tool's URL host); never
	// a path or content.
	Target string `json:"target,omitempty"`
	// ApprovalID is the approval (domain/approval) the call ran under, or was held back for
	// (APPROVAL_REQUIRED, APPROVAL_DENIED, ...); absent for a tool that does not ask, and in every
	// record made before approvals existed.
	ApprovalID uuid.UUID `json:"approval_id,omitzero"`
}

// EventType implements domain.Event.
func (ToolExecuted) EventType() string { return TypeToolExecuted }

// Events returns a zero value of every event type of this package, for building a codec.
func Events() []domain.Event { return []domain.Event{ToolExecuted{}, RequestRelayed{}} }

// Digest returns the size and hex SHA-256 of b.
func Digest(b []byte) (int, string) {
	sum := sha256.Sum256(b)
	return len(b), hex.EncodeToString(sum[:])
}

// Validate checks that an event is complete before it is appended.
func (e ToolExecuted) Validate() error {
	switch {
	case e.ExecutionID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "tool executed: no execution id")
	case e.UserID == uuid.Nil:
		return domain.Errorf(domain.CodeInvalid, "tool executed: no user")
	case e.Tool == "":
		return domain.Errorf(domain.CodeInvalid, "tool executed: no tool")
	case e.At.IsZero():
		return domain.Errorf(domain.CodeInvalid, "tool executed: no time")
	case e.Success && e.ErrorCode != "":
		return domain.Errorf(domain.CodeInvalid, "tool executed: a success carries no error code")
	case !e.Success && e.ErrorCode == "":
		return domain.Errorf(domain.CodeInvalid, "tool executed: a failure needs an error code")
	case len(e.ArgsSHA256) != 64:
		return domain.Errorf(domain.CodeInvalid, "tool executed: no argument digest")
	}
	return nil
}
