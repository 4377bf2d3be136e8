// Package projections keeps the read models up to date with the event log. It owns the Runner, which
// feeds every event to each registered Projection and records how far each has got, and the
// projection_checkpoints table (migrations 0020) in which it records it.
//
// # Guarantees
//
// Each projection reads the log in batches (Store.ReadAll) and applies a batch in one database
// transaction that also moves its checkpoint, so an event is applied exactly once even across a crash:
// either the read-model change and the new checkpoint both commit or neither does. The checkpoint
// update is conditional on the checkpoint being where the runner left it, so two runners on one
// database (two replicas, or the server and `workbench projections rebuild`) never apply a batch twice:
// the loser of a race rolls back, rereads the checkpoint and carries on from there.
//
// A projection that fails on an event stops there: it never skips the event. The error and the event's
// id, type and position are logged and written to its checkpoint row; the other projections keep going.
// Resume retries it (after the fault is fixed), as does the next Run.
//
// # Following the log
//
// Projections read with ReadAll in a loop rather than inside Subscribe's callback, because a ReadAll
// result is a natural batch: one read, one transaction, with no partial batch left open while the log
// is idle. The runner also keeps one Subscribe open (catch-up then live) from the slowest checkpoint.
// It costs no database writes and serves two purposes: every event it sees wakes the projection loops
// at once, so a new append is applied promptly rather than at the next poll, and it knows the newest
// event in the log, from which the lag metrics are computed. A slow poll (Options.PollInterval) remains
// as a fallback should the subscription fail.
//
// # In the append's own transaction
//
// On SQLite, a projection that implements Inline (the audit read model) is also applied inside the
// event store's batch transaction (Runner.InTransaction, installed with the store's
// SetInTransaction): its rows and its checkpoint commit with the events and the same fsync, instead of
// a transaction of their own after them. It is applied there only when it is exactly at the batch's
// start and its loop is idle, each projection in a savepoint; otherwise, or when it fails, the loop
// applies the events as it does for any projection. On PostgreSQL the same hook is installed with
// eventstore/postgres.Store's SetInTransaction; that store calls it only when it can tell the position
// right before the batch (no transaction below the batch's own xid still running), so the checkpoint
// never passes an event that commits later, and replicas sharing the database keep one checkpoint
// row between them as they do for the loops. AfterApply registers a function called with
// every batch a projection has applied, once committed and before WaitFor reports it (the API-key
// cache of projections/identityrm empties itself there). The savepoint and checkpoint statements of
// InTransaction are prepared once on the store's writer connection and kept from batch to batch; on
// SQLite the runner's own loop also runs its checkpoint update as a statement prepared once.
//
// # Reading your own writes
//
// WaitFor(ctx, pos) returns once every projection has applied everything up to pos, typically the
// position an Append returned; WaitForProjection waits for one. A failed projection makes them return
// its error at once rather than hang, and a wait whose context has no deadline gives up with
// ErrWaitStalled once nothing it waits for has moved for Options.WaitLimit (a minute). A lost database
// connection (a PostgreSQL restart) is no failure of the event being applied: the batch is retried
// on a new connection, at most Options.MaxRetryDelay (a second) apart, so waits resume about a second
// after the database is back.
//
// # Rebuild
//
// Rebuild resets a projection's tables (Projection.Reset) and its checkpoint in one transaction and
// replays the log from position zero. It is safe while the runner runs: in the same process it pauses
// that projection's loop for the duration; from another process the conditional checkpoint keeps the
// two apart. Readers see the tables empty and filling up while it runs.
//
// # Metrics
//
// Registered on Options.Registerer, labelled by projection:
//
//	workbench_projection_position             commit part of the position of the last applied event
//	workbench_projection_head_position        commit part of the newest event the runner has seen in the log (no label)
//	workbench_projection_lag_events           events in the log after the projection's position
//	workbench_projection_lag_seconds          age of the oldest event the projection has not applied yet
//	                                          (its metadata time, or when the runner saw it); 0 when caught up
//	workbench_projection_events_applied_total events applied (and committed) since the process started
//	workbench_projection_failed               1 while the projection is stopped on an event it cannot apply
//	workbench_projection_caught_up            1 once it has read to the end of the log and has no lag
//
// lag_events counts the events the runner's subscription has seen since Run started beyond the
// projection's position; for a projection behind the start of that window (after a Rebuild during Run,
// or more than a million events behind) it is a lower bound.
package projections
