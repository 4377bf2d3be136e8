// Package migrations holds the schema of every table Workbench keeps, per SQL dialect, embedded in the
// binary, and applies it forward-only. Files are named NNNN_name.sql; each runs once, in its own
// transaction, and is recorded in schema_migrations with its checksum so that an edited, already
// applied migration is reported instead of silently ignored.
//
// Numbering: 0001-0009 the event log, 0010-0019 the vault's key store, 0020-0099 projections and read
// models, 0100 on for later features.
//
// The event log is append-only in the schema itself (0002_events_append_only): triggers refuse UPDATE,
// DELETE and, on PostgreSQL, TRUNCATE of events for everyone, the owner included; nothing in Workbench
// changes an event (crypto-shredding deletes data keys, not events). On PostgreSQL CreateServerRole
// (`workbench migrate --create-role NAME`) adds a login role that may only SELECT and INSERT there,
// owns nothing, and so cannot drop the triggers either; Apply checks for schema_migrations before
// creating it, so that role can start the server while no migration is pending.
//
// Both dialects build the same tables and columns with the same broad types (text, integer, bytes, ...),
// except where dialects_test.go lists a difference and says why (PostgreSQL's xid8 read order, its
// native uuid, jsonb and timestamp types, jot bodies kept in the database). That test applies both
// dialects to fresh databases and fails on any other difference, so a migration written for one dialect
// only is caught.
package migrations
