// Package portalsessions projects the ends of portal sessions (domain/portalsession) into
// portal_ended_sessions and portal_sessions_cut, which handlers/websession reads on every request
// that carries a portal session cookie. The tables live in the shared database, so a session ended
// through one replica is refused by all of them as soon as the projection has applied the event
// (the sign-out route waits for that before it answers).
//
// Why a lookup per request rather than the in-memory set MCP sessions use (app/mcpsessions):
// that set learns of ends from the bus, which reaches another replica only when BUS_URL names a
// shared bus, and only after the relay has carried the event; a signed-out cookie must be refused
// everywhere from the moment sign-out answers. A portal request is a person's click, so one indexed
// lookup is cheap beside it.
package portalsessionsrm

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/portalsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "portal_sessions"

// Projection keeps portal_ended_sessions and portal_sessions_cut.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection {
	return &Projection{codec: eventstore.NewJSONCodec(portalsession.Events()...)}
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool {
	return eventType == portalsession.TypeSessionEnded || eventType == portalsession.TypeAllSessionsEnded
}

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "portal_ended_sessions", "portal_sessions_cut")
}

// Apply implements projections.Projection.
func (p *Projection) Apply(ctx context.Context, tx *sql.Tx, env eventstore.Envelope) error {
	if !p.Handles(env.Type) {
		return nil
	}
	ev, err := p.codec.Decode(env.Type, env.SchemaVersion, env.Data)
	if err != nil {
		return err
	}
	switch e := ev.(type) {
	case portalsession.SessionEnded:
		// Sessions lapsed by now need no remembering: their cookie's own expiry refuses them.
		if _, err := tx.ExecContext(ctx, `DELETE FROM portal_ended_sessions WHERE expires_at < $1`, dbtime.Format(e.At)); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO portal_ended_sessions (session_id, user_id, expires_at) VALUES ($1, $2, $3) ON CONFLICT (session_id) DO NOTHING`,
			e.SessionID.String(), e.UserID.String(), dbtime.Format(e.ExpiresAt))
		return err
	case portalsession.AllSessionsEnded:
		_, err = tx.ExecContext(ctx, `INSERT INTO portal_sessions_cut (user_id, ended_before) VALUES ($1, $2)
			ON CONFLICT (user_id) DO UPDATE SET ended_before = excluded.ended_before WHERE excluded.ended_before > portal_sessions_cut.ended_before`,
			e.UserID.String(), dbtime.Format(e.At))
		return err
	}
	return nil
}

// Reader answers whether a session is over.
type Reader struct{ DB *sql.DB }

// Ended reports whether user's session id, issued at issued, was ended by a sign-out or a sign-out
// everywhere. An error is a storage failure, never a verdict.
func (r Reader) Ended(ctx context.Context, user, session uuid.UUID, issued time.Time) (bool, error) {
	var n int
	err := r.DB.QueryRowContext(ctx, `SELECT
		(SELECT COUNT(*) FROM portal_ended_sessions WHERE session_id = $1) +
		(SELECT COUNT(*) FROM portal_sessions_cut WHERE user_id = $2 AND ended_before >= $3)`,
		session.String(), user.String(), dbtime.Format(issued)).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("portal sessions: look up session: %w", err)
	}
	return n > 0, nil
}
