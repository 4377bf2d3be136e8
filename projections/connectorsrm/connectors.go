// Package connectors projects the connector catalog, logins, their tools and listings, and the tool
// switches of every scope into read models (migration 0720), and reads the effective set of tools an
// agent sees: for each connector, the login of the most specific scope in the agent's chain, and for
// each of its tools its switch resolved along the chain (platform → organization → guild → agent) by
// Decide: an explicit Off binds every scope below it, and a default never overrides an explicit
// choice. Each login row's state is folded with the domain's own Evolve. The catalog's edits
// (catalog.go, migration 0760) set a row's switch and overrides and add, edit and remove the rows
// added by hand; a switched-off connector's tools leave the effective set, and a catalog is read per
// organisation (the platform's rows and its own).
package connectorsrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
	"github.com/workbench/workbench/projections"
)

// Name is the projection's checkpoint name.
const Name = "connectors"

// Projection keeps the connector read models.
type Projection struct {
	codec *eventstore.JSONCodec[domain.Event]
}

var _ projections.Projection = (*Projection)(nil)

// New returns the projection.
func New() *Projection {
	evs := append(append(connectordom.Events(), login.Events()...), login.SwitchEvents()...)
	return &Projection{codec: eventstore.NewJSONCodec(evs...)}
}

// Handles implements projections.Selective.
func (*Projection) Handles(t string) bool {
	return strings.HasPrefix(t, "connector.") || strings.HasPrefix(t, "login.") || strings.HasPrefix(t, "toolswitch.")
}

// Name implements projections.Projection.
func (*Projection) Name() string { return Name }

// Reset implements projections.Projection.
func (*Projection) Reset(ctx context.Context, tx *sql.Tx) error {
	return projections.DeleteAll(ctx, tx, "mcp_tool_switches", "mcp_tool_listings", "mcp_tools", "mcp_connections", "connectors", "tool_start_preferences")
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
	case connectordom.Installed:
		_, err = tx.ExecContext(ctx, `INSERT INTO connectors (id, slug, tool_prefix, manifest, digest, source, publisher, version, verified, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
			ON CONFLICT (id) DO UPDATE SET slug = $2, manifest = $4, digest = $5, source = $6, publisher = $7, version = $8, verified = $9, updated_at = $10`,
			e.ID, e.Slug, e.ToolPrefix, string(e.Manifest), e.Digest, e.Source, e.Publisher, e.Version, boolInt(e.Source == "core" || e.Verified), dbtime.Format(e.At))
		return err
	case login.StartPreferenceSet:
		_, err = tx.ExecContext(ctx, `INSERT INTO tool_start_preferences (scope, scope_id, mutating_starts_as, updated_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (scope, scope_id) DO UPDATE SET mutating_starts_as = $3, updated_at = $4`,
			string(e.Owner.Scope), e.Owner.ID.String(), e.MutatingStartsAs, dbtime.Format(e.At))
		return err
	case login.SwitchesCleared:
		q := `DELETE FROM mcp_tool_switches WHERE scope = $1 AND scope_id = $2 AND server_id = $3`
		args := []any{string(e.Owner.Scope), e.Owner.ID.String(), e.ServerID}
		if e.DefaultsOnly { // a login's removal: the switches someone set stay with the scope
			q += ` AND rule <> $4`
			args = append(args, RuleSet)
		}
		_, err = tx.ExecContext(ctx, q, args...)
		return err
	case login.SwitchSet:
		schema := e.SchemaSHA
		if e.On && schema == "" {
			// Set before switches kept a schema digest: it accepted what was listed then.
			if schema, err = listedSchemaSHA(ctx, tx, e.ServerID, e.Tool); err != nil {
				return err
			}
		}
		rule := RuleSet
		if e.Default {
			rule = RuleAdminDefault
		}
		return setSwitch(ctx, tx, e.Owner, e.ServerID, e.Tool, e.On, e.Ask, rule, e.DescriptionSHA, schema, e.At.Format(dbtime.Layout), true)
	case login.Connected:
		return p.applyLogin(ctx, tx, env, e.LoginID, ev)
	case login.SettingsSaved:
		return p.applyLogin(ctx, tx, env, e.LoginID, ev)
	case login.OAuthStarted:
		return p.applyLogin(ctx, tx, env, e.LoginID, ev)
	case login.Disconnected:
		return p.applyLogin(ctx, tx, env, e.LoginID, ev)
	case login.DefaultChosen:
		return p.applyLogin(ctx, tx, env, e.LoginID, ev)
	case login.ToolsListed:
		if err := p.applyLogin(ctx, tx, env, e.LoginID, ev); err != nil {
			return err
		}
		return applyListing(ctx, tx, env, e)
	case connectordom.Switched, connectordom.OverridesSet, connectordom.ToolOverridesSet, connectordom.Added, connectordom.Updated, connectordom.Removed:
		return applyCatalog(ctx, tx, ev)
	case login.Removed:
		for _, q := range []string{`DELETE FROM mcp_tools WHERE login_id = $1`, `DELETE FROM mcp_tool_listings WHERE login_id = $1`, `DELETE FROM mcp_connections WHERE id = $1`} {
			if _, err := tx.ExecContext(ctx, q, e.LoginID.String()); err != nil {
				return err
			}
		}
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (p *Projection) applyLogin(ctx context.Context, tx *sql.Tx, env eventstore.Envelope, id uuid.UUID, ev domain.Event) error {
	var raw string
	err := tx.QueryRowContext(ctx, `SELECT state FROM mcp_connections WHERE id = $1`, id.String()).Scan(&raw)
	found := err == nil
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	s := login.Initial()
	if found {
		if err := json.Unmarshal([]byte(raw), &s); err != nil {
			return fmt.Errorf("stored state of login %s: %w", id, err)
		}
	}
	s = login.Evolve(s, ev)
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	args := []any{s.LoginID.String(), s.ServerID, string(s.Owner.Scope), s.Owner.ID.String(), string(s.Status), s.AccountHint,
		boolInt(len(s.NeedsSettings) > 0), dbtime.Nullable(s.ListedAt), dbtime.Format(s.CreatedAt), dbtime.Format(s.UpdatedAt),
		dbtime.Nullable(s.RotatedAt), env.Version, string(b), s.Label()}
	if found {
		_, err = tx.ExecContext(ctx, `UPDATE mcp_connections SET server_id = $2, owner_scope = $3, owner_id = $4, status = $5, account_hint = $6,
			needs_settings = $7, listed_at = $8, created_at = $9, updated_at = $10, rotated_at = $11, stream_version = $12, state = $13, account = $14 WHERE id = $1`, args...)
	} else {
		_, err = tx.ExecContext(ctx, `INSERT INTO mcp_connections (id, server_id, owner_scope, owner_id, status, account_hint, needs_settings,
			listed_at, created_at, updated_at, rotated_at, stream_version, state, account) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, args...)
	}
	return err
}

func applyListing(ctx context.Context, tx *sql.Tx, env eventstore.Envelope, e login.ToolsListed) error {
	// The schema digests of the listing this one replaces: an On switch that holds none (set before
	// switches kept one, on a read model not rebuilt since) accepted that listing's schema.
	before, err := loginSchemaSHAs(ctx, tx, e.LoginID)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM mcp_tools WHERE login_id = $1`, e.LoginID.String()); err != nil {
		return err
	}
	shas := map[string]string{}
	for _, t := range e.Tools {
		schema := string(t.InputSchema)
		if schema == "" {
			schema = `{"type":"object"}`
		}
		shas[t.Name] = login.SchemaSHA(t.InputSchema, t.ReadOnlyHint, t.DestructiveHint)
		if _, err := tx.ExecContext(ctx, `INSERT INTO mcp_tools (login_id, server_id, name, remote_name, description, description_sha, input_schema,
			read_only_hint, destructive_hint, schema_sha, task_support, output_schema) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
			e.LoginID.String(), e.ServerID, t.Name, t.Remote, t.Description, login.DescriptionSHA(t.Description), schema,
			nullBool(t.ReadOnlyHint), nullBool(t.DestructiveHint), shas[t.Name], t.TaskSupport, string(t.OutputSchema)); err != nil {
			return err
		}
		accepted, ok := before[t.Name]
		if !ok {
			accepted = shas[t.Name] // nothing listed before: what is listed now is what was accepted
		}
		if _, err := tx.ExecContext(ctx, `UPDATE mcp_tool_switches SET schema_sha = $3 WHERE server_id = $1 AND tool = $2 AND is_on = 1 AND schema_sha = ''`,
			e.ServerID, t.Name, accepted); err != nil {
			return err
		}
	}
	diff, err := json.Marshal(e.Diff)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO mcp_tool_listings (login_id, stream_version, server_id, digest, previous_digest, diff, tool_count, listed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, e.LoginID.String(), env.Version, e.ServerID, e.Digest, e.Previous, string(diff), len(e.Tools), dbtime.Format(e.At)); err != nil {
		return err
	}
	descs := map[string]string{}
	for _, t := range e.Tools {
		descs[t.Name] = login.DescriptionSHA(t.Description)
	}
	for _, d := range e.Defaults {
		sha, schema := "", ""
		if d.On {
			sha, schema = descs[d.Tool], shas[d.Tool]
		}
		// A later listing leaves an existing switch alone: insert only.
		if err := setSwitch(ctx, tx, e.Owner, e.ServerID, d.Tool, d.On, false, d.Rule, sha, schema, dbtime.Format(e.At), false); err != nil {
			return err
		}
	}
	return nil
}

func setSwitch(ctx context.Context, tx *sql.Tx, o login.Owner, server, tool string, on, ask bool, rule, sha, schema, at string, overwrite bool) error {
	q := `INSERT INTO mcp_tool_switches (scope, scope_id, server_id, tool, is_on, rule, description_sha, updated_at, schema_sha, ask)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (scope, scope_id, server_id, tool) DO `
	if overwrite {
		q += `UPDATE SET is_on = $5, rule = $6, description_sha = $7, updated_at = $8, schema_sha = $9, ask = $10`
	} else {
		q += `NOTHING`
	}
	_, err := tx.ExecContext(ctx, q, string(o.Scope), o.ID.String(), server, tool, boolInt(on), rule, sha, at, schema, boolInt(ask))
	return err
}

// listedSchemaSHA is the schema digest of a tool as a login of the connector lists it now ("" when
// none does), computed from the stored schema and hints (rows written before schema_sha hold ”).
func listedSchemaSHA(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, serverID, tool string) (string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, input_schema, read_only_hint, destructive_hint FROM mcp_tools WHERE server_id = $1 AND name = $2 LIMIT 1`, serverID, tool)
	if err != nil {
		return "", err
	}
	m, err := scanSchemaSHAs(rows)
	return m[tool], err
}

// loginSchemaSHAs is the schema digest of each stored tool of a login.
func loginSchemaSHAs(ctx context.Context, tx *sql.Tx, loginID uuid.UUID) (map[string]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, input_schema, read_only_hint, destructive_hint FROM mcp_tools WHERE login_id = $1`, loginID.String())
	if err != nil {
		return nil, err
	}
	return scanSchemaSHAs(rows)
}

func scanSchemaSHAs(rows *sql.Rows) (map[string]string, error) {
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, schema string
		var ro, de sql.NullInt64
		if err := rows.Scan(&name, &schema, &ro, &de); err != nil {
			return nil, err
		}
		out[name] = login.SchemaSHA(json.RawMessage(schema), ptrBool(ro), ptrBool(de))
	}
	return out, rows.Err()
}

func nullBool(b *bool) sql.NullInt64 {
	if b == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(boolInt(*b)), Valid: true}
}
