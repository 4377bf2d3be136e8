// Package mcp serves the Model Context Protocol over streamable HTTP at /mcp, for protocol revisions
// 2025-06-18 and 2025-11-25: initialize, notifications/initialized, ping, tools/list and tools/call, with
// JSON or SSE responses, Mcp-Session-Id sessions, DELETE to end a session, and 405 on GET (the server
// sends nothing unprompted).
//
// The package owns the transport and JSON-RPC framing only. Who the caller is comes from an
// Authenticator; what the tools are and what a call does comes from a ToolSet. A session id never
// authenticates anyone: every request carries its own credential, and a session is honoured only for the
// user it was minted for. Session ids are HMAC-signed, so any replica can check one without shared state.
//
// Error semantics (spec "What a tool call does"): -32602 for an unknown meta-tool or meta-tool
// arguments that fail their schema; -32601 for an unknown method; -32001 with HTTP 401 for a missing or bad
// credential; tool failures are the ToolSet's business and come back as successful results.
package mcp
