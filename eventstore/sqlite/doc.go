// Package sqlite is the embedded event store: the log in one SQLite file (modernc.org/sqlite, pure Go),
// in WAL mode with synchronous=FULL so that every acknowledged append is on disk.
//
// It owns OpenDB (how Workbench opens a SQLite file: WAL, durable commits, foreign keys, a busy
// timeout, BEGIN IMMEDIATE) and Store, the eventstore.Store over the events table of
// migrations/sqlite/0001_events.sql. Appends go through eventstore.Batcher: concurrent callers share
// one transaction and one fsync. SQLite has one writer at a time, and each event's position is
// MAX(position)+1 inside the write transaction, so positions are gap-free and readers that follow them
// never skip a late commit, even when another process appends to the same file.
//
// A batch costs what its rows cost: BEGIN IMMEDIATE, one read of the last position and one of the
// batch's stream versions, every request decided in Go (versions, idempotent retries by
// eventstore.IdempotentRetry, reused ids), one prepared INSERT per event, COMMIT. Only when the
// database refuses a row is the batch rolled back and written again request by request in savepoints,
// so that the refused request fails alone.
//
// Batches are written on one connection, held from batch to batch with its statements prepared once,
// BEGIN IMMEDIATE and COMMIT included: a steady stream of batches parses no SQL. The tail's envelopes
// reuse the appenders' metadata when decoding its stored text would give back the same value (valid
// UTF-8 strings, a UTC time) and decode it otherwise.
// A NoStream append to a stream named after a UUIDv7, and an Any append of UUIDv7 event ids, skip the
// version read and the id lookup respectively: the UNIQUE indexes catch what those would have found,
// and the request-by-request pass answers it. SetInTransaction lets a read model be written inside
// the batch's transaction (projections.Runner.InTransaction). The writer never checkpoints the WAL in a
// commit: a background checkpoint runs every Options.CheckpointEvery events and keeps the WAL bounded
// (Options.MaxWALPages).
//
// Durability: synchronous=FULL, and SQLite syncs with fsync(2). modernc.org/sqlite can switch the whole
// process to fdatasync(2) (sqlite.Fdatasync), which is as durable (it flushes the data and the metadata
// needed to read it back, the size included) and what SQLite's own Linux builds use; the store leaves
// that process-wide switch alone, as it measured no faster on Workbench's machines.
//
// Placeholders: modernc.org/sqlite binds $1, $2, ... by number (and a repeated $1 is the same
// argument), so SQL written with PostgreSQL-style placeholders runs here unchanged; this package's own
// queries use them and placeholders_test.go pins the behaviour.
package sqlite
