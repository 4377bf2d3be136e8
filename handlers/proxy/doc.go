// Package proxy is curl_session's escape hatch (spec, concepts: "Curl session"): Mint issues a
// 15-minute token scoped to named integrations, and the Proxy forwards
// <SERVER_PUBLIC_URL>/c/<integration>/<path> carrying that token to the integration's proxy base URL
// with the user's real credential injected.
//
// # The token
//
// A token is a claim (session id, user, integrations) sealed by internal/signed with an expiry, under a
// key derived from the secret Main derives from the master key, so every replica verifies it without reading anything, the moment it
// is minted. The log records the mint (curlsession.SessionMinted) before the token is returned, never
// the token. Minting is all-or-nothing: every named integration must be known, have a proxy block and
// be connected for the user, or nothing is minted and the error names each one that is not and why.
//
// # A proxied request
//
// The token is accepted only as "Authorization: Bearer <token>" (RFC 6750 section 2.1); it is
// checked for signature, expiry and scope (401 for a missing, malformed, forged or expired token;
// 403 for another integration). Then:
//
//   - methods: GET, HEAD, POST, PUT, PATCH, DELETE; anything else is 405, a protocol upgrade 400;
//   - the path below /c/<integration> is refused (400) if it holds "//", "." or ".." segments,
//     encoded or not, backslashes, control characters or doubly encoded dots and slashes; it is
//     forwarded as sent below the proxy base path, with the query unchanged;
//   - the upstream is the manifest's origin only: the URL is built from the proxy base URL, the
//     Host header is the upstream's, and the plugin runtime's guarded transport refuses any other
//     origin before a byte leaves;
//   - the credential comes from credentials.Access (an expiring OAuth token is refreshed lazily by
//     its injector, on every request); a credential no longer usable is 409 NOT_CONNECTED. The
//     resolved credential is reused for Options.CredentialTTL (2s) across requests, so a disconnect
//     reaches a proxy that has just used it at most that late;
//   - no inbound credential reaches the provider: Authorization (the token), Cookie,
//     Proxy-Authorization, X-Workbench-*, Forwarded, X-Forwarded-* and every hop-by-hop header
//     (RFC 9110 section 7.6.1) are dropped;
//   - redirects are never followed: a 3xx goes back to the caller, its Location pointing through the
//     proxy when it stays under the proxy base and to the absolute upstream URL otherwise, so a
//     caller that follows it to another origin does so without the injected credential;
//   - bodies stream both ways; a request body is capped (413), an upstream response too (502 when
//     its declared length is over the cap; a stream that grows past it is cut, never passed off as
//     complete);
//   - provider Set-Cookie, Clear-Site-Data, HSTS, Alt-Svc and CORS headers are dropped, and the
//     response is served with nosniff and "Content-Security-Policy: sandbox", so nothing relayed acts
//     on workbench's own origin.
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
// request, not one commit each. If the append fails or takes longer than 5 s, the caller gets 503
// AUDIT_UNAVAILABLE with Retry-After and nothing is sent to the provider; that answer is the one
// request not recorded (the log is what failed), and it is logged at warn level.
//
// The decision, and why: the guarantee is "a request with a valid token that was sent to a provider
// with the user's credential, or answered with anything but that 503, has a durable record", with a
// bound of zero, under a crash (SIGKILL) and under a database outage alike. Recording at response-head time instead would
// leave a request that changed something at the provider unrecorded (and answered 503) whenever the
// log failed between the two; recording the whole outcome before the head would mean buffering
// whole responses. The outcome records are what is still written after the answer, from a bounded
// queue (Options.AuditQueue, default 1,024, appended by Run's workers, a full queue making the
// handler append its own): a failed append is retried with the same event ids until the log takes
// it, so an outage delays outcomes without losing them. A crash loses at most the outcomes not yet
// written: those queued (AuditQueue), those a worker holds (AuditWorkers x 256) and those of the
// requests still in flight. Such a request keeps its RequestForwarded record, and a
// request_forwarded without a request_proxied in the audit replay is exactly "sent, outcome lost".
// The crash and outage tests (cmd/workbench) count acknowledged responses against these records.
package proxy
