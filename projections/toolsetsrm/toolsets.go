// Package toolsetsrm projects toolsets (domain/toolset) into the toolsets table: the latest version of
// each scope's toolsets, which /mcp/ts/{name} resolves along the calling agent's chain.
package toolsetsrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/toolset"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "toolsets"

// Projection keeps toolsets.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var (
	_ projections.Projection = (*Projection)(nil)
	_ projections.Selective  = (*Projection)(nil)
)

// New returns the projection.
func New() *Projection { return &Projection{codec: eventstore.NewJSONCodec(toolset.Events()...)} }

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Handles implements projections.Selective.
func (*Projection) Handles(t string) bool { return t == toolset.TypeSaved || t == toolset.TypeDeleted }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "toolsets")
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
	case toolset.Saved:
		entries, err := json.Marshal(e.Entries)
		if err != nil {
			return err
		}
		conns := e.Connectors
		if conns == nil {
			conns = []string{}
		}
		connectors, err := json.Marshal(conns)
		if err != nil {
			return err
		}
		mirror := 0
		if e.Mirror {
			mirror = 1
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO toolsets (scope, scope_id, name, version, description, entries, updated_at, connectors, mirror) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (scope, scope_id, name) DO UPDATE SET version = $4, description = $5, entries = $6, updated_at = $7, connectors = $8, mirror = $9`,
			e.Owner.Scope, e.Owner.ID.String(), e.Name, e.Version, e.Description, string(entries), dbtime.Format(e.At), string(connectors), mirror)
		return err
	case toolset.Deleted:
		_, err := tx.ExecContext(ctx, `DELETE FROM toolsets WHERE scope = $1 AND scope_id = $2 AND name = $3`, e.Owner.Scope, e.Owner.ID.String(), e.Name)
		return err
	}
	return nil
}

// Toolset is one toolset's latest version.
type Toolset struct {
	Owner       toolset.Owner   `json:"owner"`
	Name        string          `json:"name"`
	Version     int             `json:"version"`
	Description string          `json:"description"`
	Entries     []toolset.Entry `json:"entries"`
	Connectors  []string        `json:"connectors"`
	// Mirror: the toolset serves its one connector under the remote's own names (toolset.Saved).
	Mirror    bool      `json:"mirror"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Reader reads the toolsets table.
type Reader struct{ DB *sql.DB }

// Of lists the toolsets of owners (name set: only that name), by scope and name.
func (r Reader) Of(ctx context.Context, owners []toolset.Owner, name string) ([]Toolset, error) {
	if len(owners) == 0 {
		return nil, nil
	}
	var conds []string
	var args []any
	for _, o := range owners {
		conds = append(conds, fmt.Sprintf("(scope = $%d AND scope_id = $%d)", len(args)+1, len(args)+2))
		args = append(args, o.Scope, o.ID.String())
	}
	q := `SELECT scope, scope_id, name, version, description, entries, updated_at, connectors, mirror FROM toolsets WHERE (` + strings.Join(conds, " OR ") + `)`
	if name != "" {
		args = append(args, name)
		q += fmt.Sprintf(" AND name = $%d", len(args))
	}
	rows, err := r.DB.QueryContext(ctx, q+` ORDER BY name, scope`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Toolset
	for rows.Next() {
		var t Toolset
		var id, entries, updated, connectors string
		var mirror int
		if err := rows.Scan(&t.Owner.Scope, &id, &t.Name, &t.Version, &t.Description, &entries, &updated, &connectors, &mirror); err != nil {
			return nil, err
		}
		t.Mirror = mirror != 0
		if err := json.Unmarshal([]byte(connectors), &t.Connectors); err != nil {
			return nil, err
		}
		t.Owner.ID, _ = uuid.Parse(id)
		t.UpdatedAt, _ = dbtime.Parse(updated)
		if err := json.Unmarshal([]byte(entries), &t.Entries); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
