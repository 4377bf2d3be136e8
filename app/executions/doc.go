// Package executions is the use case behind execute_tools: it runs plugin tools for a user and
// records every run as one execution.ToolExecuted event. It owns the execution aggregate's
// eventstore.Aggregate value and its one append; the MCP meta-tool parses the request, calls Run,
// and formats the outcomes (handlers/mcp/metatools).
//
// A run reads top-down: Run → the plugin registry (find the tool), the connection use case
// (connections.Service.Access in app/connections: the user's credential, refreshed lazily) → the plugin runtime (run it) →
// execution.Decide (the record) → eventstore (append it).
//
// # Fail closed
//
// No tool result leaves without its audit record. The record is appended before Run returns the
// outcome; if the append fails, the outcome is Withheld: its result is dropped here, so no caller
// can release it, and its message says the tool may have run. The append outlives the caller's
// context: the tool has run, and its record must not be lost to a hang-up.
//
// Each execution is its own stream, execution.StreamName(id), appended with NoStream and decided
// against the new stream's state without loading it (the id is fresh, so there is nothing to load):
// executions never contend with each other, and a retried append cannot record one twice.
//
// # Redaction
//
// A provider may echo the credential it was sent (an error page quoting the Authorization header).
// A plugin tool's result and error message are redacted with connections.Access.Redactor, built
// after the tool has run (so a token refreshed during the call is in it) and only when the call had
// a credential; the forms are internal/redact's. Connector tools come back already redacted by
// their source.
//
// The record holds sizes and SHA-256 digests of the arguments and of the result as returned to the
// agent (redacted), never their content.
package executions
