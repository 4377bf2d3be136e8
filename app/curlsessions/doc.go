// Package curlsessions is the curl session use case (spec, concepts: "Curl session"): it mints the
// 15-minute tokens curl_session hands out and records every request the proxy (handlers/proxy)
// takes with one. It owns the session streams, curlsession.SessionStreamName(id): the mint, then the
// requests. The proxy is its adapter: it parses and authenticates a request, calls Forwarded, Refused
// or Proxied here, forwards, and formats the answer; the curl_session meta-tool calls Mint.
//
// # Minting
//
// Minting is all-or-nothing: every named integration must be known, have a proxy block and be
// connected for the user (app/connections' Service.Access), or nothing is minted and the error (*RefusedError)
// names each one that is not and why. The token is issued by Options.Tokens (the proxy's Issuer, so
// the proxy verifies what it signed); the log records the mint (curlsession.SessionMinted) before the
// token is returned, never the token.
//
// # The audit trail and its bound
//
// Every request that carries a valid token is in the session's stream (after its SessionMinted),
// with user, session, integration, method, path and query parameter names (never values), never a
// body, a header or the token:
//
//   - a request the proxy refuses itself (scope, method, path, size, not connected) is one
//     curlsession.RequestProxied record, appended and durable BEFORE the refusal is answered;
//   - a request to forward is first a curlsession.RequestForwarded record, appended and durable
//     BEFORE a byte of it leaves for the provider (and so before the caller can see any answer);
//     then, once the response has been relayed, its curlsession.RequestProxied record (same
//     RequestID) with the status, sizes, duration and how it ended.
//
// Both synchronous appends go through the store's group commit (eventstore.Batcher): concurrent
// requests share one transaction and one fsync, so the price is about one commit of latency per
// request, not one commit each. If the append fails or takes longer than 5 s (AuditTimeout; the waits
// share one deadline per 50 ms, so at least 4.95 s), Forwarded or Refused returns the error, the
// caller gets 503 AUDIT_UNAVAILABLE with Retry-After from the proxy (handlers/proxy) and nothing is
// sent to the provider; that answer is the one request not recorded (the log is what failed), and it
// is logged at warn level. That wait for the group commit is what a proxied request adds to the
// provider's own time (BenchmarkProxy prints it as audit_wait_p50_ms): it is not overlapped with the
// upstream request, since a request sent while its record might still be lost would break the
// bound below.
//
// The decision, and why: the guarantee is "a request with a valid token that was sent to a provider
// with the user's credential, or answered with anything but that 503, has a durable record", with a
// bound of zero, under a crash (SIGKILL) and under a database outage alike. Recording at response-head time instead would
// leave a request that changed something at the provider unrecorded (and answered 503) whenever the
// log failed between the two; recording the whole outcome before the head would mean buffering
// whole responses. The outcome records are what is still written after the answer, from a bounded
// queue (Options.AuditQueue, default 1,024, appended by Run's workers, a full queue making
// Proxied append the record itself, in the request's handler): a failed append is retried with the same event ids until the log takes
// it, so an outage delays outcomes without losing them. A crash loses at most the outcomes not yet
// written: those queued (AuditQueue), those a worker holds (AuditWorkers x 256) and those of the
// requests still in flight. Such a request keeps its RequestForwarded record, and a
// request_forwarded without a request_proxied in the audit replay is exactly "sent, outcome lost".
// The crash and outage tests (cmd/workbench) count acknowledged responses against these records.
package curlsessions
