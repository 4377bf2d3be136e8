// Package internal holds no code; this file states what may live under internal/ and why the folder
// keeps its name.
//
// # The rule: infrastructure only
//
// A package under internal/ is machinery that knows no use case: the vault (envelope encryption and
// crypto-shredding), the bus (committed-event notifications between replicas), config (every setting
// read from the environment, in one place), ssrf (the outbound-address guard), signed (sealed, expiring
// tokens under a derived key), dbtime (time columns across both SQL dialects), redact (secret values
// out of remote output, in their encoded forms), httpserve (timeouts and connection limits before any
// route runs) and testenv (what a test runs on: a migrated database on either backend, a fake clock,
// the machine's Chromium; only tests import it, and its own imports follow the rule for test code).
//
// What does not belong here, and where it goes instead:
//
//   - a use case, anything that decides and appends a domain aggregate's events for a caller (connect a
//     credential, redeem a sign-in link, deploy a jot): app/<area>;
//   - HTTP edge code, anything that reads a request or writes a response for a route (authenticating a
//     Bearer token, the portal session cookie, a JSON handler): handlers/<surface>;
//   - a read model, or the shaping of events into records for reading (the audit records and their
//     replay): projections/<read model>.
//
// The arrows follow from that (DESIGN.md's import rules): a package here imports nothing of the
// repository but eventstore and domain types (the vault records its own key events; the bus relays
// envelopes), so every layer above (projections, app, handlers, plugins) may use it without pulling a use
// case, a handler or a read model in. A package that needs app/, handlers/ or projections/ to do its job
// is in the wrong folder.
//
// # Why the name stays internal
//
// The word says little about the contents in a one-module repository, and `infra/` or `platform/` would
// say more. The name stays because the compiler gives it a meaning the others lack: Go refuses an import
// of an internal/ package from outside this module, so the vault, the bus and the token sealing cannot
// become another module's dependency by accident, and their APIs can change with the code that calls
// them. Renaming would trade that guarantee for a label this comment gives anyway. If the folder ever
// needs a second level to stay readable, the move is internal/<group>/..., not a new top-level name.
package internal
