// Package audit serves the audit trail over HTTP. It is the adapter only: it parses parameters,
// authenticates, asks app/compliance to authorise and record an auditor's read, asks the readers of
// projections/auditrm (which owns the Record type, the read model and the log replays), and formats.
//
//   - GET /api/audit (Handler): the signed-in user's own records, newest first, a page at a time.
//   - GET /api/audit/receipts and /api/audit/receipts/summary (MountReceipts): one connection's usage
//     receipts — what used it, filterable — and a monthly summary, the user's own records only.
//   - GET /api/activity, /api/activity/summary, /api/activity/names and /api/activity/{event_id}
//     (MountActivity): the portal's Activity page — the user's own records filtered, the chart's
//     buckets per day and per hour with p50/p95, one record in full, and the names of the user's
//     agents, keys and OAuth clients. Behind websession.RequireUser like every portal route.
//   - /api/admin/audit, /asof, /blast-radius, /what-if, /credentials, /me and /api/admin/auditors (MountAdmin): the compliance
//     API for auditors and the role's grants for instance admins. Every auditor read is recorded
//     (identity.audit_read) before a record is written to the response; a storage failure is 503.
//     JSON Lines and CSV stream every matching record; the first record is read before the headers
//     are sent, so a failure before any output is still a proper error status.
package audithttp
