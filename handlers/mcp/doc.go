// Package mcp serves the Model Context Protocol over streamable HTTP at /mcp, for protocol revisions
// 2025-03-26, 2025-06-18 and 2025-11-25: initialize, notifications/initialized, ping, tools/list,
// tools/call and logging/setLevel, with JSON or SSE responses, Mcp-Session-Id sessions, DELETE to end
// a session, and 405 on GET (the server sends nothing unprompted).
//
// The package owns the transport and JSON-RPC framing only. Who the caller is comes from an
// Authenticator; what the tools are and what a call does comes from a ToolSet. A session id never
// authenticates anyone: every request carries its own credential, and a session is honoured only for the
// user it was minted for. Session ids are internal/signed tokens, so any replica can check one without
// shared state; the id carries the negotiated revision, and Options.Now is the clock they expire by.
//
// Decoding is strict, in one pass of a streaming decoder over the body: JSON-RPC member names are
// matched case-sensitively, and a message in which any object repeats a member name is -32600. Go's
// encoding/json folds case and keeps the last of repeated members, so without this a proxy reading the
// exact keys of {"method":"ping","Method":"tools/call"} would see a different request than the one the
// server ran. Parameters are read through maps (exact names), never case-folding structs.
//
// Batches: revision 2025-03-26 allows a POST body to be a JSON-RPC batch, later revisions removed it.
// A session negotiated at 2025-03-26 may send one (at most MaxBatch messages, never initialize); its
// requests run in order and are answered as one array, and a batch of only notifications and
// responses is 202. Any other session gets -32600, as does an empty array.
//
// logging/setLevel (the logging capability) validates the level against the eight RFC 5424 names and
// keeps it per session, in process memory, until the session ends or expires. The server sends no
// notifications/message.
//
// Streams (stream.go): a tools/call whose client accepts text/event-stream is answered on an SSE
// stream once it has something to send before its response: notifications/progress for a call that
// gave a progressToken, and the requests a remote tool sends the agent's client (elicitation/create,
// sampling/createMessage, roots/list) when the client declared those capabilities at initialize (kept
// in the signed session id). The client's answer to such a request is a POST of the JSON-RPC response
// on the same session. notifications/cancelled cancels the session's tools/call it names, which then
// ends without a response (2025-11-25 basic/utilities/cancellation). Calls, cancellations and relay
// answers are matched in this replica's memory only.
//
// Error semantics (spec "What a tool call does"): -32602 for an unknown meta-tool or meta-tool
// arguments that fail their schema; -32601 for an unknown method; -32001 with HTTP 401 for a missing or bad
// credential; tool failures are the ToolSet's business and come back as results (CallResult.IsError
// sets isError).
//
// A ToolSet that implements RunInstructor adds, per session, to Options.Instructions in the initialize
// result (the connectors' state and guidance, instructions.go); initialize waits for it beside the run
// start's other work, and the ToolSet bounds its time (5 s for the connectors' state hooks).
package mcp
