// Package proxy is curl_session's escape hatch (spec, concepts: "Curl session"): app/curlsessions
// mints a 15-minute token scoped to named integrations, and the Proxy forwards
// <SERVER_PUBLIC_URL>/c/<integration>/<path> carrying that token to the integration's proxy base URL
// with the user's real credential injected.
//
// # The token
//
// A token is a claim (session id, user, integrations) sealed by internal/signed with an expiry, under
// a key derived from the secret Main derives from the master key, so every replica verifies it without
// reading anything, the moment it is minted. Minting is app/curlsessions' (Service.Mint), which has the
// token issued by this package's Issuer under the same key the Proxy verifies with; the log records
// the mint, never the token (see app/curlsessions).
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
//   - connections to the provider are kept and reused, in a pool of the proxy's own cloned from the
//     transport Main gives it (internal/ssrf's): a reused connection is not resolved again, and every
//     new one is resolved and its address checked before it is dialled;
//   - the credential comes from connections.Access (an expiring OAuth token is refreshed lazily by
//     its injector, on every request); a credential no longer usable is 409 NOT_CONNECTED. The
//     resolved credential is reused for Options.CredentialTTL (2s) across requests, so a disconnect
//     reaches a proxy that has just used it at most that late (requests arriving while it is being
//     resolved wait for that one resolution);
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
// Every request that carries a valid token is recorded through app/curlsessions, which owns the
// records and their durability bound (see its package documentation, "The audit trail and its
// bound"). This package keeps its side of that guarantee: it sends nothing to the provider until
// Sessions.Forwarded has returned nil, answers no refusal until Sessions.Refused has, and answers
// 503 AUDIT_UNAVAILABLE with Retry-After when either fails (curlsessions.AuditTimeout bounds the
// wait), logged at warn level; that answer is the one request not recorded.
package proxy
