// Package mcpclient is the pool of MCP client sessions on connectors' remote endpoints (spec
// connectors.md, The pool and adapters; Limits). It uses the official Go SDK client over streamable
// HTTP and keeps one session per login id: agents that inherit the same login share one session, two
// logins are two sessions. A call whose agent's client declared elicitation, sampling or roots runs on
// a session of its own instead, leased per login and capability set (relay.go says which capabilities
// each session declares and where the remote's requests go). A call carries the remote's progress and
// requests back through its context (internal/mcppeer); cancelling the context sends the remote
// notifications/cancelled and keeps the session. The pool knows no connector by name: callers hand it
// an Endpoint.
//
// Every request a session sends first resolves its host and refuses a private, loopback, link-local or
// metadata address in any encoding (CheckURL runs the same check when a URL is saved), and the dialer
// checks the address again, so a public name later pointed inward is caught. Loopback is reachable only
// with Options.AllowLoopback (WORKBENCH_DEV_ALLOW_LOOPBACK).
//
// A login's credential header goes to its endpoint's origin (scheme, host and port) only: a redirect to
// another origin is refused with an error naming its host, one within the origin is followed. A
// tools/call is sent a second time (on a new session) only when it provably never reached the remote:
// the dial or the write failed before a byte of its body went out, or the remote answered 404 for a
// session it no longer knows; a JSON-RPC error, a reset or a timeout after that is the caller's answer.
// A listing, which changes nothing, is retried after any failure but a refusal.
//
// Limits: tools/call 90 seconds, tools/list 15 seconds, at most 200 tools and 1 MB in one listing.
package mcpclient
