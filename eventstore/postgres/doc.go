// Package postgres is the PostgreSQL backend of eventstore.Store, on pgx/v5 (pgxpool). It owns the
// events table of migrations/postgres and nothing else.
//
// Global order. Each row carries the id of the transaction that wrote it (pg_current_xact_id(), stored
// as xid8) and a sequence value (position). Readers order by (xid, position) and read only rows whose
// xid is below the oldest transaction still running, taken from pg_current_snapshot(). Every
// transaction below that line has ended, so no row can later appear before what a reader has already
// seen: a reader never passes an event that commits late. Position.Commit holds the xid and
// Position.Prepare the sequence value. The line is pg_snapshot_xmin(pg_current_snapshot()) minus the
// running transactions that pg_stat_activity places in other databases (they cannot write this
// table); see readAllSQL. The price: a long transaction in this database (even one that writes no
// events) holds readers back until it ends; appends are not affected.
//
// Appends. Concurrent appends are group-committed through eventstore.Batcher: one transaction and one
// WAL flush per batch (synchronous_commit is left as the server has it; the store never turns it off).
// A batch takes a transaction-scoped advisory lock per stream (in one fixed order), reads the streams'
// versions and the event ids already stored, decides every request in Go, and writes the accepted
// events with one multi-row INSERT. A request whose expected version does not match fails alone; the
// rest of the batch commits. The locks make replicas that share the database wait for each other per
// stream, and the UNIQUE (stream, version) constraint is the backstop.
//
// A batch whose requests all name their stream's version, each on a stream of its own, is written in
// one round trip (begin, insert, notify, commit; see fastInsertSQL), as a bare single-row insert is.
//
// In-transaction writes. SetInTransaction installs a hook called between a batch's insert and its
// commit, on the same connection (a database/sql connection held from batch to batch, so the hook's
// prepared statements stay prepared), with the position of the last event ordered before the batch:
// projections.Runner.InTransaction writes the audit read model and its checkpoint there, so they are
// durable with the events' own commit. The position is given only when it is certain, that is when no
// transaction of this database whose xid is below the batch's can still be running (see beforeSQL);
// otherwise the hook is not called and the projection's own loop applies the events. A batch written
// with a hook takes two round trips.
//
// Wake-ups. Every Store LISTENs on workbench_events on a dedicated connection (application_name
// "workbench event listener") and wakes its subscribers on each notification, so a subscriber on one
// replica sees another replica's commits at once. An append transaction sends NOTIFY workbench_events
// while another store's listener is connected to the database: each store looks in pg_stat_activity
// every 200 ms, and alone (its own listener the only one) it skips the notification, which would only
// wake subscribers its own commit wakes already, and which costs a single-row append about a sixth
// of its time. A new listener wakes its subscribers again a second after it connects, which reads
// what others appended before they saw it. Subscribers also poll, because a transaction that notifies
// nobody can hold events back below the xmin line.
//
// Appends. A batch whose requests all name their stream's version, each on a stream of its own, is
// one statement in a transaction of its own (insert and notify, one round trip, as a bare insert); a
// row's version needs checking against its stream only when the store has not seen the stream reach
// the version before it (it keeps the versions it committed or read per stream), otherwise the
// UNIQUE (stream, version) index alone refuses an append to a stream that moved on. Other batches lock
// their streams and read their versions first (two round trips).
package postgres
