// Package mcpsessions projects mcp.session_ended events into mcp_ended_sessions, the list a replica loads
// at start so that a session ended on any replica before it started stays ended.
package mcpsessionsrm

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "mcp_sessions"

// Projection keeps mcp_ended_sessions.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection { return &Projection{codec: eventstore.NewJSONCodec(mcpsession.Events()...)} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool { return eventType == mcpsession.TypeSessionEnded }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "mcp_ended_sessions")
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if env.Type != mcpsession.TypeSessionEnded {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	e := ev.(mcpsession.SessionEnded)
	_, err = tx.ExecContext(ctx, `INSERT INTO mcp_ended_sessions (session_id, expires_at) VALUES ($1, $2) ON CONFLICT (session_id) DO NOTHING`,
		e.SessionID, dbtime.Format(e.ExpiresAt))
	return err
}

// Unexpired returns the ended sessions that would not have lapsed yet at now, with their expiry.
func Unexpired(ctx context.Context, db *sql.DB, now time.Time) (map[string]time.Time, error) {
	rows, err := db.QueryContext(ctx, `SELECT session_id, expires_at FROM mcp_ended_sessions WHERE expires_at > $1`, dbtime.Format(now))
	if err != nil {
		return nil, fmt.Errorf("mcpsessions: load: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id, exp string
		if err := rows.Scan(&id, &exp); err != nil {
			return nil, err
		}
		t, err := dbtime.Parse(exp)
		if err != nil {
			return nil, err
		}
		out[id] = t
	}
	return out, rows.Err()
}
