package sqlite

import "context"

// WriteGate lets the writers of one SQLite database inside this process take turns in Go instead of
// in SQLite's busy handler.
//
// SQLite allows one write transaction at a time per database file. When two connections of the same
// process both BEGIN IMMEDIATE, the loser does not queue: SQLite calls its busy handler, which sleeps
// on a fixed schedule (1, 2, 5, 10 … 100 ms) and retries, so a writer can sleep tens of milliseconds
// after the lock was released (https://www.sqlite.org/c3ref/busy_timeout.html). Every component that
// writes to the file (the event store's batch commit, the projection runner, the bus relay's
// checkpoint, the vault's key store) holds the same gate around its write transaction, so they queue
// on a channel and each starts the moment the previous one commits. The busy timeout stays for
// writers in other processes (the CLI beside a running server) and for writes that do not take the
// gate.
//
// One gate per database file: create it beside OpenDB and pass it to every writer of that file. A nil
// *WriteGate is valid and does nothing, which is what PostgreSQL deployments pass.
type WriteGate struct {
	turn chan struct{}
}

// NewWriteGate returns an open gate.
func NewWriteGate() *WriteGate {
	return &WriteGate{turn: make(chan struct{}, 1)}
}

// Lock waits for the gate, or for ctx to end (returning its error). On a nil gate it returns at once.
func (g *WriteGate) Lock(ctx context.Context) error {
	if g == nil {
		return nil
	}
	select {
	case g.turn <- struct{}{}:
		return nil
	default:
	}
	select {
	case g.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock releases the gate taken by Lock. On a nil gate it does nothing.
func (g *WriteGate) Unlock() {
	if g == nil {
		return
	}
	select {
	case <-g.turn:
	default:
		panic("sqlite: WriteGate.Unlock of an unlocked gate")
	}
}
