package bus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Checkpoint is where a Relay keeps the position of the last event it published.
type Checkpoint interface {
	// Load returns the saved position, or eventstore.Start when nothing was saved.
	Load(ctx context.Context) (eventstore.Position, error)
	// Save records that every event up to and including p was published.
	Save(ctx context.Context, p eventstore.Position) error
}

// MemoryCheckpoint keeps the position in memory: enough for the in-process GoChannel bus, whose
// subscribers start and stop with the process, so nothing is owed to them across a restart.
type MemoryCheckpoint struct {
	mu  sync.Mutex
	pos eventstore.Position
}

// NewMemoryCheckpoint starts at start: eventstore.Start to publish the whole log, or the log's
// current end to publish only what commits from now on.
func NewMemoryCheckpoint(start eventstore.Position) *MemoryCheckpoint {
	return &MemoryCheckpoint{pos: start}
}

// Load returns the position last saved.
func (m *MemoryCheckpoint) Load(context.Context) (eventstore.Position, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.pos, nil
}

// Save records p.
func (m *MemoryCheckpoint) Save(_ context.Context, p eventstore.Position) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pos = p
	return nil
}

// SQLCheckpoint keeps the position in the table bus_relay_checkpoints (migration 0030_bus), on
// SQLite or PostgreSQL: the queries are the same in both dialects. With several replicas on one
// PostgreSQL they share the row, so whichever relay takes over resumes where the last one stopped.
type SQLCheckpoint struct {
	db   *sql.DB
	name string
	gate WriteGate
}

// WriteGate serializes the writers of one database inside the process; eventstore/sqlite.WriteGate
// is one.
type WriteGate interface {
	// Lock waits for the gate or for ctx to end (returning its error).
	Lock(ctx context.Context) error
	// Unlock releases the gate.
	Unlock()
}

// NewSQLCheckpoint keeps the position of the relay called name (e.g. EventsTopic) in db.
func NewSQLCheckpoint(db *sql.DB, name string) *SQLCheckpoint {
	return &SQLCheckpoint{db: db, name: name}
}

// WithWriteGate makes Save hold gate around its write (on SQLite, the gate every writer of the file
// shares, so the save queues in Go instead of in SQLite's busy handler) and returns c. A nil gate
// means none.
func (c *SQLCheckpoint) WithWriteGate(gate WriteGate) *SQLCheckpoint {
	c.gate = gate
	return c
}

// Load returns the saved position, or eventstore.Start when the row does not exist yet.
func (c *SQLCheckpoint) Load(ctx context.Context) (eventstore.Position, error) {
	var commit, prepare int64
	err := c.db.QueryRowContext(ctx,
		`SELECT commit_position, prepare_position FROM bus_relay_checkpoints WHERE name = $1`, c.name).
		Scan(&commit, &prepare)
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.Start, nil
	}
	if err != nil {
		return eventstore.Position{}, fmt.Errorf("bus: load relay checkpoint %q: %w", c.name, err)
	}
	if commit < 0 || prepare < 0 {
		return eventstore.Position{}, fmt.Errorf("bus: relay checkpoint %q holds a negative position %d/%d", c.name, commit, prepare)
	}
	return eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}, nil
}

// Save records p.
func (c *SQLCheckpoint) Save(ctx context.Context, p eventstore.Position) error {
	// Positions are stored as signed 64-bit integers, the widest both dialects have. Every backend's
	// positions fit: sequences and PostgreSQL's 64-bit transaction ids stay far below 2^63.
	if p.Commit > math.MaxInt64 || p.Prepare > math.MaxInt64 {
		return fmt.Errorf("bus: relay checkpoint %q: position %s does not fit a BIGINT", c.name, p)
	}
	if c.gate != nil {
		if err := c.gate.Lock(ctx); err != nil {
			return fmt.Errorf("bus: save relay checkpoint %q: wait for the write gate: %w", c.name, err)
		}
		defer c.gate.Unlock()
	}
	_, err := c.db.ExecContext(ctx, `INSERT INTO bus_relay_checkpoints (name, commit_position, prepare_position, updated_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (name) DO UPDATE SET commit_position = excluded.commit_position,
			prepare_position = excluded.prepare_position, updated_at = excluded.updated_at`,
		c.name, int64(p.Commit), int64(p.Prepare), time.Now().UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("bus: save relay checkpoint %q at %s: %w", c.name, p, err)
	}
	return nil
}
