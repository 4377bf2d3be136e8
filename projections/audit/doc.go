// Package audit projects the audited events into the audit_records read model (migration 0023): the
// same records `workbench audit replay` streams from the log (internal/audit), kept per user for the
// per-user /api/audit. Emails are resolved from identity.user_created events the projection keeps in
// its own audit_users table, in log order, so a record here is byte for byte the record the replay
// gives for the same event. Records that name no user are not kept (every audited event names one).
//
// It is a projections.Selective (the audited types and identity.user_created), so batches of other
// events cost no write; within a batch its statements are prepared once and each user's email is read
// once (see BenchmarkRebuild).
package audit
