package audit

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/audit"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "audit"

// Projection keeps audit_records and audit_users.
type Projection struct {
	dec *audit.Decoder
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection { return &Projection{dec: audit.NewDecoder()} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	for _, t := range []string{"audit_records", "audit_users"} {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+t); err != nil {
			return fmt.Errorf("reset %s: %w", t, err)
		}
	}
	return nil
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	user, email, ok, err := p.dec.UserCreated(env)
	if err != nil {
		return err
	}
	if ok {
		_, err := tx.ExecContext(ctx, `INSERT INTO audit_users (user_id, email) VALUES ($1, $2)`, user.String(), email)
		return err
	}
	rec, ok, err := p.dec.Decode(env)
	if err != nil || !ok || rec.UserID == uuid.Nil {
		return err
	}
	err = tx.QueryRowContext(ctx, `SELECT email FROM audit_users WHERE user_id = $1`, rec.UserID.String()).Scan(&rec.Email)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("email of user %s: %w", rec.UserID, err)
	}
	body, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO audit_records (event_id, user_id, commit_pos, prepare_pos, at, kind, integration, record)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		rec.EventID.String(), rec.UserID.String(), encodePos(rec.Position.Commit), encodePos(rec.Position.Prepare),
		dbtime.Format(rec.Time), string(rec.Kind), rec.Integration, string(body))
	return err
}

// encodePos writes a position part as 20 zero-padded digits (see migration 0023).
func encodePos(v uint64) string {
	s := strconv.FormatUint(v, 10)
	const width = 20
	if len(s) >= width {
		return s
	}
	return "00000000000000000000"[:width-len(s)] + s
}

// Reader lists records from the read model. It implements audit.Reader for the /api/audit handler.
type Reader struct{ DB *sql.DB }

var _ audit.Reader = Reader{}

// ForUser implements audit.Reader: up to limit of the user's records, newest first, strictly before
// `before` in log order (from the newest when before is the zero position).
func (r Reader) ForUser(ctx context.Context, user uuid.UUID, before eventstore.Position, limit int) ([]audit.Record, error) {
	if limit < 1 {
		return nil, nil
	}
	var rows *sql.Rows
	var err error
	if before.IsZero() {
		rows, err = r.DB.QueryContext(ctx, `SELECT record FROM audit_records WHERE user_id = $1
			ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $2`, user.String(), limit)
	} else {
		c, p := encodePos(before.Commit), encodePos(before.Prepare)
		rows, err = r.DB.QueryContext(ctx, `SELECT record FROM audit_records WHERE user_id = $1
			AND (commit_pos < $2 OR (commit_pos = $2 AND prepare_pos < $3))
			ORDER BY commit_pos DESC, prepare_pos DESC LIMIT $4`, user.String(), c, p, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
	}
	defer rows.Close()
	var out []audit.Record
	for rows.Next() {
		var body string
		if err := rows.Scan(&body); err != nil {
			return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
		}
		var rec audit.Record
		if err := json.Unmarshal([]byte(body), &rec); err != nil {
			return nil, fmt.Errorf("audit: stored record of %s: %w", user, err)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: list records of %s: %w", user, err)
	}
	return out, nil
}
