package eventstore

import "time"

// Metadata travels with every event in the log. It says who caused the event and in what chain of
// messages, never what the event itself means.
type Metadata struct {
	// Actor is the workbench user (or "system", or a CLI operator) on whose authority the event was
	// recorded.
	Actor string `json:"actor,omitempty"`
	// OnBehalfOf names the user an actor acted for, when they differ (an admin acting for a user).
	OnBehalfOf string `json:"on_behalf_of,omitempty"`
	// MCPClient is the OAuth client id or API key id through which an agent made the call.
	MCPClient string `json:"mcp_client,omitempty"`
	// CorrelationID ties together every event caused by one inbound request.
	CorrelationID string `json:"correlation_id,omitempty"`
	// CausationID is the id of the event or request that directly caused this one.
	CausationID string `json:"causation_id,omitempty"`
	// Time is when the event was decided, in UTC.
	Time time.Time `json:"time"`
	// TraceID is the OpenTelemetry trace the event was appended in (32 hex digits), when tracing is on;
	// the instrumented store fills it from the append's context when the caller left it empty.
	TraceID string `json:"trace_id,omitempty"`
}
