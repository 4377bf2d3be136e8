// Package approvalsrm projects the approvals of calls held back by a switch set to Ask
// (domain/approval) into the approvals table: the portal's inbox lists those waiting for a user.
// The approval itself (its arguments, who decided) is read from its stream (app/approvals).
package approvalsrm

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "approvals"

// Projection keeps approvals.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection { return &Projection{codec: eventstore.NewJSONCodec(approval.Events()...)} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective.
func (*Projection) Handles(eventType string) bool {
	switch eventType {
	case approval.TypeRequested, approval.TypeApproved, approval.TypeDenied, approval.TypeExpired, approval.TypeUsed:
		return true
	}
	return false
}

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "approvals")
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
	status := func(id uuid.UUID, st approval.Status) error {
		_, err := tx.ExecContext(ctx, `UPDATE approvals SET status = $2 WHERE approval_id = $1`, id.String(), string(st))
		return err
	}
	switch e := ev.(type) {
	case approval.Requested:
		agent := ""
		if e.AgentID != uuid.Nil {
			agent = e.AgentID.String()
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO approvals (approval_id, user_id, agent_id, tool, integration, status, requested_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (approval_id) DO NOTHING`,
			e.ApprovalID.String(), e.UserID.String(), agent, e.Tool, e.Integration, string(approval.StatusPending), dbtime.Format(e.At), dbtime.Format(e.ExpiresAt))
		return err
	case approval.Approved:
		return status(e.ApprovalID, approval.StatusApproved)
	case approval.Denied:
		return status(e.ApprovalID, approval.StatusDenied)
	case approval.Expired:
		return status(e.ApprovalID, approval.StatusExpired)
	case approval.Used:
		return status(e.ApprovalID, approval.StatusUsed)
	}
	return nil
}

// Reader reads the approvals table.
type Reader struct{ DB *sql.DB }

// Pending lists the ids of the approvals waiting for the user's decision and not expired at now, the
// newest first (at most 100): the user's own, and those of the agents of the organisations the user is
// an owner, admin or approver of (read from the organisations read model in the same database).
func (r Reader) Pending(ctx context.Context, user uuid.UUID, now time.Time) ([]uuid.UUID, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT approval_id FROM approvals WHERE status = $2 AND expires_at > $3 AND (user_id = $1
		OR agent_id IN (SELECT a.agent_id FROM agents a JOIN org_members m ON m.org_id = a.org_id WHERE m.user_id = $1 AND m.role IN ('owner', 'admin', 'approver')))
		ORDER BY requested_at DESC LIMIT 100`, user.String(), string(approval.StatusPending), dbtime.Format(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []uuid.UUID
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, fmt.Errorf("approvals: stored id %q: %w", s, err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// MayApprove reports whether user is an owner, admin or approver of agent's organisation (from the
// organisations read model in the same database).
func (r Reader) MayApprove(ctx context.Context, user, agent uuid.UUID) (bool, error) {
	var n int
	err := r.DB.QueryRowContext(ctx, `SELECT COUNT(*) FROM agents a JOIN org_members m ON m.org_id = a.org_id
		WHERE a.agent_id = $1 AND m.user_id = $2 AND m.role IN ('owner', 'admin', 'approver')`, agent.String(), user.String()).Scan(&n)
	return n > 0, err
}

// AgentName is an agent's name from the organisations read model ("" when it has none there: the
// user's default agent before it was projected).
func (r Reader) AgentName(ctx context.Context, agent uuid.UUID) (string, error) {
	var name string
	err := r.DB.QueryRowContext(ctx, `SELECT name FROM agents WHERE agent_id = $1`, agent.String()).Scan(&name)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return name, err
}
