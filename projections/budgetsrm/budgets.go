// Package budgetsrm projects the budgets scopes set on their agents' tool calls (domain/budget) into
// the budgets table, which the tool-call path reads (app/budgets) to know which limits a call must
// fit. The calls themselves are counted in event streams, not here.
package budgetsrm

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/budget"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "budgets"

// Projection keeps budgets.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection { return &Projection{codec: eventstore.NewJSONCodec(budget.Events()...)} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective: only the policy, never the counted calls.
func (*Projection) Handles(eventType string) bool { return eventType == budget.TypeSet }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "budgets")
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
	e, ok := ev.(budget.Set)
	if !ok {
		return nil
	}
	if e.PerMinute == 0 && e.PerDay == 0 {
		_, err = tx.ExecContext(ctx, `DELETE FROM budgets WHERE scope = $1 AND scope_id = $2 AND tool = $3`, e.Owner.Scope, e.Owner.ID.String(), e.Tool)
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO budgets (scope, scope_id, tool, per_minute, per_day, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (scope, scope_id, tool) DO UPDATE SET per_minute = $4, per_day = $5, updated_at = $6`,
		e.Owner.Scope, e.Owner.ID.String(), e.Tool, e.PerMinute, e.PerDay, dbtime.Format(e.At))
	return err
}

// Budget is one budget as the read model holds it.
type Budget struct {
	Owner     budget.Owner `json:"owner"`
	Tool      string       `json:"tool"`
	PerMinute int          `json:"per_minute"`
	PerDay    int          `json:"per_day"`
}

// Reader reads the budgets table.
type Reader struct{ DB *sql.DB }

// Of lists the budgets set at any of owners, by scope, scope id and tool.
func (r Reader) Of(ctx context.Context, owners []budget.Owner) ([]Budget, error) {
	if len(owners) == 0 {
		return nil, nil
	}
	var conds []string
	var args []any
	for _, o := range owners {
		conds = append(conds, fmt.Sprintf("(scope = $%d AND scope_id = $%d)", len(args)+1, len(args)+2))
		args = append(args, o.Scope, o.ID.String())
	}
	rows, err := r.DB.QueryContext(ctx, `SELECT scope, scope_id, tool, per_minute, per_day FROM budgets WHERE `+strings.Join(conds, " OR ")+
		` ORDER BY scope, scope_id, tool`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Budget
	for rows.Next() {
		var b Budget
		var id string
		if err := rows.Scan(&b.Owner.Scope, &id, &b.Tool, &b.PerMinute, &b.PerDay); err != nil {
			return nil, err
		}
		if b.Owner.ID, err = uuid.Parse(id); err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, rows.Err()
}
