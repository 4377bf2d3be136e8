// Package auditsink is the SIEM feed (issue 15, item 7): it follows the event log and delivers every
// audit record (projections/auditrm's Decoder: tool runs, connection events, API keys, curl sessions and
// their requests, shreds, the auditor role and every auditor read) to a webhook (AUDIT_SINK_URL,
// batches signed with HMAC-SHA256 under AUDIT_SINK_SECRET) and/or a NATS JetStream subject
// (AUDIT_SINK_NATS_SUBJECT, on the NATS server of AUDIT_SINK_NATS_URL, else BUS_URL).
//
// # At least once, in order, resumable
//
// One Sink per destination reads the log from its checkpoint (table audit_sink_checkpoints, migration
// 0621), turns events into records, and sends them in batches, in log order, one batch at a time. A
// batch is retried with exponential backoff (AUDIT_SINK_RETRY_MIN to AUDIT_SINK_RETRY_MAX) until the
// destination acknowledges it (a 2xx answer; a JetStream PubAck); only then is the checkpoint moved
// past it. So a crash between the acknowledgement and the checkpoint write sends that batch again:
// delivery is at least once, never lost, and each record carries its event_id (and each batch its
// batch_id, the log positions it spans) for the receiver to deduplicate. On JetStream the batch id is
// also the message id, so the server drops a re-sent batch inside its duplicate window.
//
// # The webhook
//
// POST AUDIT_SINK_URL, Content-Type application/json, body {"sink","batch_id","from","through",
// "records":[...]}, headers X-Workbench-Batch (the batch id) and X-Workbench-Signature
// "t=UNIX,v1=HEX" where HEX is HMAC-SHA256(AUDIT_SINK_SECRET, "UNIX." + body): the receiver recomputes
// it over the raw body, compares in constant time, and rejects an old t to stop replays. The URL must
// be https; plain http is accepted only for a loopback address under WORKBENCH_DEV_ALLOW_LOOPBACK.
// Every dial goes through internal/ssrf (public addresses only; loopback only under the same
// development setting), and redirects are not followed.
//
// # Emails
//
// A record names its user by id; its email is filled in from identity.user_created events seen while
// following, and otherwise from the audit read model's audit_users table (projections/auditrm.Reader).
// Sign-in links and OAuth grants are records of a full replay only (they need the log's history) and
// are not sent.
//
// # Lag
//
// workbench_audit_sink_lag{sink} is how far the sink is behind, in seconds: the age of the oldest
// event read but not yet acknowledged, 0 when it has delivered everything it has read.
// workbench_audit_sink_delivered_total{sink} counts acknowledged records and
// workbench_audit_sink_failures_total{sink} failed attempts.
package auditsink
