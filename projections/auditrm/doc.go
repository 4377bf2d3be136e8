// Package audit owns the compliance view of the event log: one Record type for every fact an auditor
// asks about (tool executions, connects, refreshes, re-authorizations, disconnects, connect attempts
// that started or expired, API keys minted, rotated and revoked, subjects shredded, curl sessions
// minted and the requests proxied under them; and, in a replay only, access to Workbench itself: sign-in
// links issued and used, OAuth clients registered, grants and token families revoked), how an event
// becomes a Record (Decoder), the replay of the log itself into a stream of Records (Replay, behind
// `workbench audit replay`), the JSON Lines and CSV writers for that stream, and the audit_records read
// model (migration 0023) that keeps the same records per user (Projection, Reader). The per-user
// `/api/audit` HTTP handler over that read model is handlers/audithttp's. The auditor role's grants and
// revocations and every read an auditor makes of the compliance API are records too (auditor_granted,
// auditor_revoked, audit_read; app/compliance writes them). Every listing of a connector login's tools
// is a tools_listed record (login.tools_listed: digest, previous digest, tool count and the diff, so a
// tool whose description changed is visible in the trail), kept for the user the listing ran for.
// A remote's elicitation, sampling or roots request passed on to the agent's client is a
// request_relayed record (execution.request_relayed: execution, tool, method, mode, outcome, the
// request's size and digest; never the question or the answer).
//
// # The compliance readers
//
// Reader.List pages every user's records of the read model in log order (filters by user, integration,
// tool, outcome, client and time; the cursor is a log position; migration 0620 indexes positions), for
// /api/admin/audit and the usage receipts. AsOf and BlastRadius read the log itself: AsOf folds every
// connection stream with the connection decider's own Evolve up to an instant (an event counts when its
// metadata time is at or before it; the whole log is read, since times are not monotonic in it), and
// never consults a current table; BlastRadius replays the log (the same replay as Replay, records and
// access trail alike) and gathers what one API key, OAuth client, curl session or agent did, with
// totals. WhatIf replays the tool executions of a recent window against proposed tool switches laid
// over the current ones (the connectors and organisations read models) and lists, per agent, the
// calls they would have blocked.
//
// # The activity readers
//
// ActivityList, Activity, ActivityRecord and ApprovalTrail read one user's records for the portal's
// Activity page, never another's (every query names the user): a filtered list newest first, the
// chart's buckets per UTC day and per hour with nearest-rank p50/p95 of the calls that ran (Summarize,
// Percentile; bounded by MaxActivityRange and MaxActivityRows), one record, and an approval's steps.
// Outcome classes a tool run as ok, error or refused (it did not run). Credentials lists the keys,
// clients, sessions and agents the newest records name, for the auditors' blast-radius list.
//
// # One package for the record and its read model
//
// The record shaping and the read model live together because the read model is made of nothing but
// records: the projection runs the same Decoder the replay runs, so a record kept here is byte for byte
// the record the replay gives for the same event, and keeping both in one package keeps that true by
// construction. Their names do not collide (Projection, Reader and Name are the read model's; Record,
// Decoder, Replay, Filter and the writers the record's), and the package imports only domain,
// eventstore and infrastructure, as every projection may; the HTTP handler is the one adapter and
// lives in handlers/audithttp.
//
// # The read model
//
// Emails are resolved from identity.user_created events the projection keeps in its own audit_users
// table, in log order. Records that name no user are not kept (every audited event names one). The
// projection is a projections.Selective (the audited types and identity.user_created), so batches of
// other events cost no write; within a batch its statements are prepared once and each user's email is
// read once (see BenchmarkRebuild).
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
package auditrm
