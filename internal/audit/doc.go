// Package audit owns the compliance view of the event log: one Record type for every fact an auditor
// asks about (tool executions, connects, refreshes, re-authorizations, disconnects, connect attempts
// that started or expired, API keys minted, rotated and revoked, subjects shredded, curl sessions
// minted and the requests proxied under them; and, in a replay only, access to Workbench itself: sign-in
// links issued and used, OAuth clients registered, grants and token families revoked), how an event
// becomes a Record (Decoder), the replay of the log itself into a stream of Records (Replay, behind
// `workbench audit replay`), the JSON Lines and CSV writers for that stream, and the per-user
// `/api/audit` HTTP handler over a read model (projections/audit keeps it).
//
// # What a record holds
//
// Who (user id, and the email the log's identity events give that user), when (the event's own time,
// or its metadata time when it has none), what (Kind, integration, tool, success, error code,
// duration), through what (how the agent authenticated and the MCP client or API key id, the API key
// ids of key events, the connection stream version), and the sizes and SHA-256 digests of a tool's
// arguments and result; for a curl session, its id, integrations and expiry, and for each proxied
// request its method, path, query parameter names, status, body sizes and duration (request_proxied),
// preceded for a request sent to the provider by a request_forwarded record written before it left;
// request_id joins the two, and a request_forwarded alone is a request whose outcome was lost in a
// crash (app/curlsessions documents that bound). Never a secret:
// sealed credentials, sealed API keys, key hashes and display prefixes, PKCE verifiers, argument or
// result content, curl session tokens, request and response bodies, headers and query values are all
// left out (the log holds none of the last four), so an export can be handed to an auditor as is.
//
// # Replay reads the log, not a read model
//
// Replay reads the whole log with Store.ReadAll from the start, in global order, so an export is
// exactly what the log says, whatever state the read models are in. Emails are resolved from the
// identity.user_created events as the replay meets them (a user's stream starts with that event, and
// every other event about the user comes after it). Event times are not monotonic in the log (two
// replicas' clocks differ, and a commit may land after a later-stamped one), so the time filter is
// applied to every event and the replay always reads to the end.
//
// # CSV injection
//
// A spreadsheet opening a CSV evaluates a cell that starts with = + - or @ as a formula (and some treat
// a leading tab or carriage return the same way). Integration names, tool names, error codes,
// reasons and account hints come from plugins, providers and people, so the CSV writer prefixes every
// cell that starts with one of those characters with a single quote ('), as OWASP's "CSV Injection"
// guidance recommends. The quote is part of the cell's text: a consumer that needs the raw value strips
// one leading quote from such cells, or reads the JSON Lines export, which is never altered.
package audit
