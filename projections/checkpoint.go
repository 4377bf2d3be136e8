package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/migrations"
)

// Positions are stored as exactly 20 decimal digits, zero-padded, so that as text they compare as the
// uint64 values do on every dialect (see migrations/*/0020_projections.sql).
func encodePos(v uint64) string { return fmt.Sprintf("%020d", v) }

func decodePos(s string) (uint64, error) {
	if len(s) != 20 {
		return 0, fmt.Errorf("stored position %q is not 20 digits", s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// errCheckpointMoved says the checkpoint row was not where this runner left it: another runner (a
// replica, or a rebuild in another process) moved it. The batch was rolled back.
var errCheckpointMoved = errors.New("checkpoint moved by another runner")

// queries holds the checkpoint statements of one dialect.
type queries struct {
	ensure, load, advanceSQL, reset, fail string
	// sqlite says the dialect is SQLite (see Runner.advance).
	sqlite bool
}

func queriesFor(d migrations.Dialect) (queries, error) {
	var now string
	switch d {
	case migrations.SQLite:
		now = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
	case migrations.Postgres:
		now = `now()`
	default:
		return queries{}, fmt.Errorf("projections: unknown dialect %q (want %q or %q)", d, migrations.SQLite, migrations.Postgres)
	}
	const clearErr = `error = NULL, error_event_id = NULL, error_event_type = NULL, error_commit_pos = NULL, error_prepare_pos = NULL, error_at = NULL`
	return queries{
		ensure: `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES ($1, $2, $2, ` + now + `) ON CONFLICT (name) DO NOTHING`,
		load:   `SELECT commit_pos, prepare_pos, error, error_event_id, error_event_type, error_commit_pos, error_prepare_pos FROM projection_checkpoints WHERE name = $1`,
		// advance moves the checkpoint only from where this runner last saw it.
		advanceSQL: `UPDATE projection_checkpoints SET commit_pos = $2, prepare_pos = $3, updated_at = ` + now + `, ` + clearErr +
			` WHERE name = $1 AND commit_pos = $4 AND prepare_pos = $5`,
		reset: `UPDATE projection_checkpoints SET commit_pos = $2, prepare_pos = $2, updated_at = ` + now + `, ` + clearErr + ` WHERE name = $1`,
		fail: `UPDATE projection_checkpoints SET error = $2, error_event_id = $3, error_event_type = $4, error_commit_pos = $5, error_prepare_pos = $6, error_at = ` + now + `, updated_at = ` + now +
			` WHERE name = $1 AND commit_pos = $7 AND prepare_pos = $8`,
	}, nil
}

// storedCheckpoint is a checkpoint row as read back.
type storedCheckpoint struct {
	pos       eventstore.Position
	err       string // empty when healthy
	eventID   string
	eventType string
	errPos    eventstore.Position
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// loadCheckpoint creates the projection's checkpoint row at Start when it has none, and reads it.
func (q queries) loadCheckpoint(ctx context.Context, db querier, name string) (storedCheckpoint, error) {
	if _, err := db.ExecContext(ctx, q.ensure, name, encodePos(0)); err != nil {
		return storedCheckpoint{}, fmt.Errorf("create checkpoint of %q: %w", name, err)
	}
	var c, p string
	var errText, evID, evType, errC, errP sql.NullString
	if err := db.QueryRowContext(ctx, q.load, name).Scan(&c, &p, &errText, &evID, &evType, &errC, &errP); err != nil {
		return storedCheckpoint{}, fmt.Errorf("read checkpoint of %q: %w", name, err)
	}
	var cp storedCheckpoint
	var err1, err2 error
	cp.pos.Commit, err1 = decodePos(c)
	cp.pos.Prepare, err2 = decodePos(p)
	if err := errors.Join(err1, err2); err != nil {
		return storedCheckpoint{}, fmt.Errorf("checkpoint of %q: %w", name, err)
	}
	cp.err, cp.eventID, cp.eventType = errText.String, evID.String, evType.String
	if errC.Valid && errP.Valid {
		cp.errPos.Commit, _ = decodePos(errC.String)
		cp.errPos.Prepare, _ = decodePos(errP.String)
	}
	return cp, nil
}

// advance moves the checkpoint from `from` to `to` inside tx (a transaction, or a connection inside
// one), or returns errCheckpointMoved.
func (q queries) advance(ctx context.Context, tx querier, name string, from, to eventstore.Position) error {
	res, err := tx.ExecContext(ctx, q.advanceSQL, name, encodePos(to.Commit), encodePos(to.Prepare), encodePos(from.Commit), encodePos(from.Prepare))
	if err != nil {
		return fmt.Errorf("move checkpoint of %q to %s: %w", name, to, err)
	}
	return checkAdvanced(res, name, to)
}

// checkAdvanced returns errCheckpointMoved unless res says the checkpoint row was moved.
func checkAdvanced(res sql.Result, name string, to eventstore.Position) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("move checkpoint of %q to %s: %w", name, to, err)
	}
	if n != 1 {
		return errCheckpointMoved
	}
	return nil
}

// advanceWith is advance through stmt, advanceSQL prepared on the transaction's connection.
func (q queries) advanceWith(ctx context.Context, stmt *sql.Stmt, name string, from, to eventstore.Position) error {
	res, err := stmt.ExecContext(ctx, name, encodePos(to.Commit), encodePos(to.Prepare), encodePos(from.Commit), encodePos(from.Prepare))
	if err != nil {
		return fmt.Errorf("move checkpoint of %q to %s: %w", name, to, err)
	}
	return checkAdvanced(res, name, to)
}

// recordFailure writes f into the checkpoint row, provided the checkpoint is still at `at`.
func (q queries) recordFailure(ctx context.Context, db querier, f *Failure, at eventstore.Position) error {
	_, err := db.ExecContext(ctx, q.fail, f.Projection, f.Err.Error(), f.Event.ID.String(), f.Event.Type,
		encodePos(f.Event.Position.Commit), encodePos(f.Event.Position.Prepare), encodePos(at.Commit), encodePos(at.Prepare))
	if err != nil {
		return fmt.Errorf("record failure of %q: %w", f.Projection, err)
	}
	return nil
}
