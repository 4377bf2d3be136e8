package connectorsrm

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/internal/dbtime"
)

// applyCatalog projects the catalog's edits (domain/connectordom/catalog.go): the switch, the overrides
// document, and the local rows added by hand, edited and removed. The claims of the catalog stream
// (connector.slug_claimed, connector.slug_released) hold nothing the read model needs: the rows
// themselves carry their slugs and prefixes.
func applyCatalog(ctx context.Context, tx *sql.Tx, ev domain.Event) error {
	var err error
	switch e := ev.(type) {
	case connectordom.Added:
		_, err = tx.ExecContext(ctx, `INSERT INTO connectors (id, slug, tool_prefix, owner_org_id, manifest, digest, source, publisher, version, verified, enabled, overrides, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, '', '', 0, 1, NULL, $8)
			ON CONFLICT (id) DO UPDATE SET slug = $2, tool_prefix = $3, owner_org_id = $4, manifest = $5, digest = $6, source = $7, publisher = '', version = '',
			verified = 0, enabled = 1, overrides = NULL, updated_at = $8`,
			e.ID, e.Slug, e.ToolPrefix, nullString(e.OwnerOrgID), string(e.Manifest), e.Digest, connectordom.SourceLocal, dbtime.Format(e.At))
	case connectordom.Updated:
		_, err = tx.ExecContext(ctx, `UPDATE connectors SET manifest = $2, digest = $3, updated_at = $4 WHERE id = $1`, e.ID, string(e.Manifest), e.Digest, dbtime.Format(e.At))
	case connectordom.Switched:
		_, err = tx.ExecContext(ctx, `UPDATE connectors SET enabled = $2, updated_at = $3 WHERE id = $1`, e.ID, boolInt(e.Enabled), dbtime.Format(e.At))
	case connectordom.OverridesSet:
		_, err = tx.ExecContext(ctx, `UPDATE connectors SET overrides = $2, updated_at = $3 WHERE id = $1`, e.ID, nullJSON(e.Overrides), dbtime.Format(e.At))
	case connectordom.ToolOverridesSet:
		_, err = tx.ExecContext(ctx, `UPDATE connectors SET overrides = $2, updated_at = $3 WHERE id = $1`, e.ID, nullJSON(e.Overrides), dbtime.Format(e.At))
	case connectordom.Removed:
		// Its logins and switches went first, by their own events; whatever a lost race left goes too.
		for _, q := range []string{`DELETE FROM mcp_tool_switches WHERE server_id = $1`, `DELETE FROM mcp_tools WHERE server_id = $1`,
			`DELETE FROM mcp_tool_listings WHERE server_id = $1`, `DELETE FROM connectors WHERE id = $1`} {
			if _, err := tx.ExecContext(ctx, q, e.ID); err != nil {
				return err
			}
		}
	}
	return err
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullJSON(b json.RawMessage) sql.NullString {
	if len(b) == 0 || string(b) == "null" {
		return sql.NullString{}
	}
	return sql.NullString{String: string(b), Valid: true}
}

// disabled is the set of switched-off connectors.
func (r Reader) disabled(ctx context.Context) (map[string]bool, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT id FROM connectors WHERE enabled = 0`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// ServersFor lists the catalog an organisation sees, by slug: the platform's rows and its own (org
// uuid.Nil as "": the platform's alone). Another organisation's rows are never read.
func (r Reader) ServersFor(ctx context.Context, org string) ([]Server, error) {
	return r.servers(ctx, `WHERE owner_org_id IS NULL OR owner_org_id = '' OR owner_org_id = $1 ORDER BY slug, id`, org)
}

// ServerLogins lists every login of one connector, at any scope.
func (r Reader) ServerLogins(ctx context.Context, serverID string) ([]Login, error) {
	return r.scanLogins(ctx, `WHERE server_id = $1 ORDER BY created_at`, serverID)
}

// SwitchOwners lists the scopes holding a switch that names the connector.
func (r Reader) SwitchOwners(ctx context.Context, serverID string) ([]Switch, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT DISTINCT scope, scope_id FROM mcp_tool_switches WHERE server_id = $1 ORDER BY scope, scope_id`, serverID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Switch
	for rows.Next() {
		var s Switch
		var scope, id string
		if err := rows.Scan(&scope, &id); err != nil {
			return nil, err
		}
		s.Owner.Scope = login.Scope(scope)
		s.Owner.ID, _ = uuid.Parse(id)
		s.ServerID = serverID
		out = append(out, s)
	}
	return out, rows.Err()
}

// Rows lists every catalog row's id, slug, owner and prefix (the claims' view of the read model).
func (r Reader) Rows(ctx context.Context) ([]connectordom.Row, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT id, slug, COALESCE(owner_org_id, ''), tool_prefix FROM connectors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []connectordom.Row
	for rows.Next() {
		var x connectordom.Row
		if err := rows.Scan(&x.ID, &x.Slug, &x.OwnerOrgID, &x.ToolPrefix); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// ListedTools lists the tools any login of the connector lists, one per remote name; its
// DestructiveHint is true when any listing marked it so.
func (r Reader) ListedTools(ctx context.Context, serverID string) ([]Tool, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT remote_name, MIN(description), MIN(input_schema), MAX(destructive_hint) FROM mcp_tools WHERE server_id = $1 GROUP BY remote_name ORDER BY remote_name`, serverID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tool
	for rows.Next() {
		t := Tool{ServerID: serverID}
		var schema string
		var de sql.NullInt64
		if err := rows.Scan(&t.Remote, &t.Description, &schema, &de); err != nil {
			return nil, err
		}
		t.InputSchema = json.RawMessage(schema)
		t.DestructiveHint = ptrBool(de)
		out = append(out, t)
	}
	return out, rows.Err()
}
