// Package mcpclient is the pool of MCP client sessions on connectors' remote endpoints (spec
// connectors.md, The pool and adapters; Limits). It uses the official Go SDK client over streamable
// HTTP and keeps one session per login id: agents that inherit the same login share one session, two
// logins are two sessions. The pool knows no connector by name: callers hand it an Endpoint.
//
// Every request a session sends first resolves its host and refuses a private, loopback, link-local or
// metadata address in any encoding (CheckURL runs the same check when a URL is saved), and the dialer
// checks the address again, so a public name later pointed inward is caught. Loopback is reachable only
// with Options.AllowLoopback (WORKBENCH_DEV_ALLOW_LOOPBACK).
//
// Limits: tools/call 90 seconds, tools/list 15 seconds, at most 200 tools and 1 MB in one listing.
package mcpclient
