// Package browser is the browser use case: each user's browser session (one headless Chromium in the
// app/browserpool pool), the log of its lifecycle, the live-view links, and the nine tools of the
// built-in "browser" integration.
//
// # Sessions and events
//
// New builds the pool and appends every change the pool reports to the user's stream
// (domain/browserdom): BrowserSessionStarted, BrowserSessionStopped (idle, memory_limit, shutdown,
// crashed) and BrowserSessionReset. Acquire and Reset answer the pool's refusals as application errors:
// BROWSER_SESSION_BUSY (CodeConflict) while a spawn or a profile reset is in flight or pending,
// CodeUnavailable at BROWSER_MAX_SESSIONS. HandOver and TakeBack (the live view) record
// BrowserControlHandedOver and BrowserControlTakenBack before control changes hands; RecordCapture
// records BrowserCookiesCaptured.
//
// # Tools
//
// Integration returns the manifest, schemas and Go handlers that the server registers with
// plugins.Registry.AddInternal under the reserved name "browser", so no plugin can reach a browser.
// Every call claims the user's session (capture and the live view resolve the same one), refuses with
// HUMAN_IN_CONTROL while a person drives it, and runs within a time limit (timeout_ms, default 30s,
// at most 120s; element lookups wait at most 10s unless timeout_ms is given). A missing element names
// its selector or ref; a timeout names the limit.
//
//   - browser_navigate: http and https only; the host must be, or resolve to, public addresses
//     (loopback only with WORKBENCH_DEV_ALLOW_LOOPBACK); a navigation or redirect the pool's proxy
//     refused is answered as refused.
//   - browser_read: URL, title, visible text, and an accessibility snapshot whose refs (e<backend node
//     id>) stay valid while the element stays on the page; field values are never shown.
//   - browser_click, browser_type (the text is never logged), browser_wait (selector, ref or text),
//     browser_back, browser_screenshot (a PNG as plugins.Image, which execute_tools answers as MCP
//     image content), browser_evaluate (off unless BROWSER_ALLOW_EVALUATE=true).
//   - browser_live_url: a signed link (internal/signed, label "browser-live", 5 minutes) to
//     <SERVER_PUBLIC_URL>/portal/browser/live?t=<token>; OpenLiveToken reads it back, and the portal
//     must still check that the signed-in user is the one it names. With {"action": "take_back"} it
//     ends the person's control instead (TakeBack, recorded as BrowserControlTakenBack; a take-back
//     while the agent already drives records nothing): the tools work at once, the live view's state
//     stream turns to "the agent drives" within its half-second poll, and the person's input is
//     refused (NOT_IN_CONTROL) until they take control again from the page.
//
// # Replicas
//
// With several replicas a user's session lives in one replica's Chromium, the holder. New records
// the replica's own URL (Options.ReplicaURL, WORKBENCH_REPLICA_URL) in every BrowserSessionStarted
// and BrowserSessionStopped (a stop on a replica that is not the recorded holder leaves the holder's);
// Holder folds the user's session stream (the log itself, so another replica's start is seen at once)
// and names the holder while it runs elsewhere. Each tool handler Integration returns is routed: when
// another replica holds the session the call is POSTed to its ToolPath, signed for the user with
// Options.Replicas (app/browser/replicaauth, a key derived from the root key; no credential of the user
// travels), and RunForwarded runs it there on the local pool and never forwards again. A holder that
// cannot be reached (dial failure, or an address answering 401/404 as no replica of this server) is
// gone: the call runs here, the session starts here, and this replica is recorded as the holder. A
// holder that answers but fails is reported as unavailable (the call is not run twice).
// handlers/browserhttp proxies the portal's live-view routes to the holder the same way.
//
// Each call is recorded by execute_tools like any tool run (sizes and digests, never page content);
// the handler logs the tool, the user and the URL host only.
package browser
