// Package migrations holds the schema of every table Workbench keeps, per SQL dialect, embedded in the
// binary, and applies it forward-only. Files are named NNNN_name.sql; each runs once, in its own
// transaction, and is recorded in schema_migrations with its checksum so that an edited, already
// applied migration is reported instead of silently ignored.
//
// Numbering: 0001-0009 the event log, 0010-0019 the vault's key store, 0020-0099 projections and read
// models, 0100 on for later features.
package migrations
