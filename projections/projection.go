package projections

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
)

// Projection turns events into a read model kept in the relational database.
type Projection interface {
	// Name identifies the projection in its checkpoint row, the logs, the metrics and the CLI. It
	// never changes once the projection has been deployed.
	Name() string
	// Apply applies one event to the read model inside tx, the transaction that will also move the
	// checkpoint. It ignores event types it does not know (returning nil). An error stops the
	// projection at this event; the transaction is rolled back.
	Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error
	// Reset empties the projection's tables inside tx (it does not drop them: migrations create them).
	Reset(ctx context.Context, tx *sql.Tx) error
}

// Selective is implemented by a projection that applies only some event types. For a batch holding
// none of them the runner skips the write transaction and advances the projection in memory, writing
// the checkpoint at most every Options.LazyCheckpoint: on a busy log of events it ignores (tool
// executions, for the identity read model) it then costs no fsync per batch.
type Selective interface {
	Handles(eventType string) bool
}

// Options tune a Runner; nil means defaults.
type Options struct {
	// Projections are the read models the runner keeps up to date. Names must be unique.
	Projections []Projection
	// Logger receives progress and failures (default: discarded).
	Logger *slog.Logger
	// Registerer, when set, receives the runner's metrics (see the package documentation).
	Registerer prometheus.Registerer
	// BatchSize is how many events one read, and so one transaction, takes (default 500).
	BatchSize int
	// PollInterval is how often an idle projection rereads the log without being woken by the
	// runner's subscription (default 1s).
	PollInterval time.Duration
	// MaxRetryDelay caps the backoff after an error that is not the projection's own, such as a lost
	// database connection (default 1s, so that read models resume within about a second of the
	// database coming back).
	MaxRetryDelay time.Duration
	// WaitLimit bounds a WaitFor whose context has no deadline: it fails with ErrWaitStalled once none
	// of the projections it waits for has moved for this long (default DefaultWaitLimit; negative: no
	// limit).
	WaitLimit time.Duration
	// LazyCheckpoint is how long a Selective projection may go without writing its checkpoint while
	// it skips batches it has nothing to do in (default 1s; negative writes every batch).
	LazyCheckpoint time.Duration
	// WriteGate, when set, is held around every write the runner makes to the database: on SQLite,
	// the gate every writer of the file shares (eventstore/sqlite.WriteGate), so that the runner's
	// transactions queue behind the event store's in Go rather than in SQLite's busy handler. nil on
	// PostgreSQL.
	WriteGate WriteGate
}

// WriteGate serializes the writers of one database inside the process; eventstore/sqlite.WriteGate
// is one.
type WriteGate interface {
	// Lock waits for the gate or for ctx to end (returning its error).
	Lock(ctx context.Context) error
	// Unlock releases the gate.
	Unlock()
}

// EventRef identifies one event in the log.
type EventRef struct {
	ID       uuid.UUID
	Type     string
	Stream   string
	Version  int64
	Position eventstore.Position
}

func refOf(env eventstore.Envelope) EventRef {
	return EventRef{ID: env.ID, Type: env.Type, Stream: env.Stream, Version: env.Version, Position: env.Position}
}

// Failure is the error of a projection that stopped on an event it could not apply.
type Failure struct {
	Projection string
	Event      EventRef
	Err        error
	At         time.Time
}

func (f *Failure) Error() string {
	return fmt.Sprintf("projection %q stopped at event %s (%s, stream %q version %d, position %s): %v",
		f.Projection, f.Event.ID, f.Event.Type, f.Event.Stream, f.Event.Version, f.Event.Position, f.Err)
}

func (f *Failure) Unwrap() error { return f.Err }

// Status is one projection's progress, as Runner.Status reports it.
type Status struct {
	Name string
	// Position is that of the last event the projection applied (Start if none).
	Position eventstore.Position
	// CaughtUp is true once the projection has read to the end of the log since the runner started
	// and has applied every event the runner has seen since.
	CaughtUp bool
	// LagEvents is how many events the runner has seen in the log after Position (see the package
	// documentation for when it is a lower bound).
	LagEvents uint64
	// Lag is the age of the oldest event the projection has not applied yet; 0 when caught up.
	Lag time.Duration
	// Applied counts events applied since the process started.
	Applied uint64
	// Err is a *Failure when the projection stopped on an event; nil otherwise.
	Err error
	// Retrying is the last error of the runner's own work (reading the log, committing) that it is
	// retrying with backoff; nil once a batch succeeds again.
	Retrying error
}

// DeleteAll empties tables inside tx, in the order given (children before parents): the body of most
// projections' Reset.
func DeleteAll(ctx context.Context, tx *sql.Tx, tables ...string) error {
	for _, t := range tables {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("reset %s: %w", t, err)
		}
	}
	return nil
}
