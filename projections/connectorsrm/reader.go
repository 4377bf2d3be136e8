package connectorsrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/internal/dbtime"
)

// Reader reads the connector read models.
type Reader struct {
	DB *sql.DB
}

// Server is one catalog row.
type Server struct {
	ID         string
	Slug       string
	ToolPrefix string
	OwnerOrgID string
	Manifest   json.RawMessage
	Digest     string
	Source     string
	Verified   bool
	Publisher  string
	Version    string
	Enabled    bool
	// Overrides are the instance admin's edits (null when none).
	Overrides json.RawMessage
}

const serverCols = `id, slug, tool_prefix, COALESCE(owner_org_id, ''), manifest, digest, source, verified, publisher, version, enabled, COALESCE(overrides, '')`

func scanServer(sc interface{ Scan(...any) error }) (Server, error) {
	var s Server
	var manifest, overrides string
	var verified, enabled int
	err := sc.Scan(&s.ID, &s.Slug, &s.ToolPrefix, &s.OwnerOrgID, &manifest, &s.Digest, &s.Source, &verified, &s.Publisher, &s.Version, &enabled, &overrides)
	s.Manifest, s.Verified, s.Enabled = json.RawMessage(manifest), verified == 1, enabled == 1
	if overrides != "" {
		s.Overrides = json.RawMessage(overrides)
	}
	return s, err
}

// Servers lists the catalog by slug.
func (r Reader) Servers(ctx context.Context) ([]Server, error) {
	return r.servers(ctx, `ORDER BY slug`)
}

// servers reads the catalog rows the rest of a query (where and order) selects.
func (r Reader) servers(ctx context.Context, rest string, args ...any) ([]Server, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT `+serverCols+` FROM connectors `+rest, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Server
	for rows.Next() {
		s, err := scanServer(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// Server reads one catalog row; domain.CodeNotFound when there is none.
func (r Reader) Server(ctx context.Context, id string) (Server, error) {
	s, err := scanServer(r.DB.QueryRowContext(ctx, `SELECT `+serverCols+` FROM connectors WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, domain.Errorf(domain.CodeNotFound, "no connector %s", id)
	}
	return s, err
}

// Login is a login row: its folded state (with the sealed credential, which never leaves the app layer).
type Login struct {
	login.State
	Version int64
}

// NeedsSettings reports whether a required setting is missing.
func (l Login) NeedsSettings() bool { return len(l.State.NeedsSettings) > 0 }

func (r Reader) scanLogins(ctx context.Context, q string, args ...any) ([]Login, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT state, stream_version FROM mcp_connections `+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Login
	for rows.Next() {
		var raw string
		var l Login
		if err := rows.Scan(&raw, &l.Version); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(raw), &l.State); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Login reads one login by id; domain.CodeNotFound when there is none.
func (r Reader) Login(ctx context.Context, id uuid.UUID) (Login, error) {
	ls, err := r.scanLogins(ctx, `WHERE id = $1`, id.String())
	if err != nil {
		return Login{}, err
	}
	if len(ls) == 0 {
		return Login{}, domain.Errorf(domain.CodeNotFound, "no login %s", id)
	}
	return ls[0], nil
}

// Logins lists the logins owned by any of owners, by connector and scope.
func (r Reader) Logins(ctx context.Context, owners []login.Owner) ([]Login, error) {
	if len(owners) == 0 {
		return nil, nil
	}
	var conds []string
	var args []any
	for _, o := range owners {
		conds = append(conds, fmt.Sprintf("(owner_scope = $%d AND owner_id = $%d)", len(args)+1, len(args)+2))
		args = append(args, string(o.Scope), o.ID.String())
	}
	ls, err := r.scanLogins(ctx, `WHERE `+strings.Join(conds, " OR ")+` ORDER BY server_id, created_at`, args...)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].ServerID != ls[j].ServerID {
			return ls[i].ServerID < ls[j].ServerID
		}
		return scopeRank(ls[i].Owner.Scope) < scopeRank(ls[j].Owner.Scope)
	})
	return ls, nil
}

// LoginsAtScope lists every login owned at one scope, by id.
func (r Reader) LoginsAtScope(ctx context.Context, scope login.Scope) ([]Login, error) {
	return r.scanLogins(ctx, `WHERE owner_scope = $1 ORDER BY id`, string(scope))
}

func scopeRank(s login.Scope) int {
	for i, x := range login.Scopes {
		if x == s {
			return i
		}
	}
	return -1
}

// Tool is one stored tool of a login.
type Tool struct {
	LoginID        uuid.UUID
	ServerID       string
	Name           string
	Remote         string
	Description    string
	DescriptionSHA string
	// SchemaSHA is the digest of the input schema and hints (login.SchemaSHA).
	SchemaSHA       string
	InputSchema     json.RawMessage
	ReadOnlyHint    *bool
	DestructiveHint *bool
	// TaskSupport is the listed execution.taskSupport ("" when none was given).
	TaskSupport string
	// OutputSchema is the listed outputSchema (nil when none was given, or listed before it was kept).
	OutputSchema json.RawMessage
}

// Tools lists the stored tools of a login by name.
func (r Reader) Tools(ctx context.Context, loginID uuid.UUID) ([]Tool, error) {
	return r.tools(ctx, []uuid.UUID{loginID})
}

func (r Reader) tools(ctx context.Context, ids []uuid.UUID) ([]Tool, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ph := make([]string, len(ids))
	args := make([]any, len(ids))
	for i, id := range ids {
		ph[i] = fmt.Sprintf("$%d", i+1)
		args[i] = id.String()
	}
	rows, err := r.DB.QueryContext(ctx, `SELECT login_id, server_id, name, remote_name, description, description_sha, input_schema, read_only_hint, destructive_hint, schema_sha, task_support, output_schema
		FROM mcp_tools WHERE login_id IN (`+strings.Join(ph, ", ")+`) ORDER BY name`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Tool
	for rows.Next() {
		var t Tool
		var id, schema, output string
		var ro, de sql.NullInt64
		if err := rows.Scan(&id, &t.ServerID, &t.Name, &t.Remote, &t.Description, &t.DescriptionSHA, &schema, &ro, &de, &t.SchemaSHA, &t.TaskSupport, &output); err != nil {
			return nil, err
		}
		if output != "" {
			t.OutputSchema = json.RawMessage(output)
		}
		t.LoginID, _ = uuid.Parse(id)
		t.InputSchema = json.RawMessage(schema)
		t.ReadOnlyHint, t.DestructiveHint = ptrBool(ro), ptrBool(de)
		if t.SchemaSHA == "" { // a row written before schema_sha, not listed since
			t.SchemaSHA = login.SchemaSHA(t.InputSchema, t.ReadOnlyHint, t.DestructiveHint)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func ptrBool(n sql.NullInt64) *bool {
	if !n.Valid {
		return nil
	}
	b := n.Int64 == 1
	return &b
}

// Listing is one listing of a login's tools.
type Listing struct {
	Version  int64
	Digest   string
	Previous string
	Diff     login.Diff
	Count    int
	At       time.Time
}

// Listings lists a login's listings, newest first.
func (r Reader) Listings(ctx context.Context, loginID uuid.UUID) ([]Listing, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT stream_version, digest, previous_digest, diff, tool_count, listed_at FROM mcp_tool_listings
		WHERE login_id = $1 ORDER BY stream_version DESC`, loginID.String())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Listing
	for rows.Next() {
		var l Listing
		var diff, at string
		if err := rows.Scan(&l.Version, &l.Digest, &l.Previous, &diff, &l.Count, &at); err != nil {
			return nil, err
		}
		_ = json.Unmarshal([]byte(diff), &l.Diff)
		l.At, _ = dbtime.Parse(at)
		out = append(out, l)
	}
	return out, rows.Err()
}

// Switch is one tool's switch at one scope.
type Switch struct {
	Owner          login.Owner
	ServerID       string
	Tool           string
	On             bool
	Rule           string
	DescriptionSHA string
	// SchemaSHA is the schema digest the switch accepted ("" when it holds none: not compared).
	SchemaSHA string
	// Ask: On, and every call waits for a person's approval (only an explicit switch asks).
	Ask bool
}

// Switches reads the switches of owners, keyed by server id and tool.
func (r Reader) Switches(ctx context.Context, owners []login.Owner) (map[string][]Switch, error) {
	return r.switches(ctx, owners, "")
}

// PluginSwitches reads the switches of owners that switch plugin tools (login.PluginServerID),
// keyed as Switches keys them.
func (r Reader) PluginSwitches(ctx context.Context, owners []login.Owner) (map[string][]Switch, error) {
	return r.switches(ctx, owners, ` AND server_id LIKE '`+login.PluginServerPrefix+`%'`)
}

func (r Reader) switches(ctx context.Context, owners []login.Owner, and string, extra ...any) (map[string][]Switch, error) {
	if len(owners) == 0 {
		return nil, nil
	}
	var conds []string
	var args []any
	for _, o := range owners {
		conds = append(conds, fmt.Sprintf("(scope = $%d AND scope_id = $%d)", len(args)+1, len(args)+2))
		args = append(args, string(o.Scope), o.ID.String())
	}
	args = append(args, extra...)
	rows, err := r.DB.QueryContext(ctx, `SELECT scope, scope_id, server_id, tool, is_on, rule, description_sha, schema_sha, ask FROM mcp_tool_switches WHERE (`+strings.Join(conds, " OR ")+`)`+and, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string][]Switch{}
	for rows.Next() {
		var s Switch
		var scope, id string
		var on, ask int
		if err := rows.Scan(&scope, &id, &s.ServerID, &s.Tool, &on, &s.Rule, &s.DescriptionSHA, &s.SchemaSHA, &ask); err != nil {
			return nil, err
		}
		s.Ask = ask == 1
		s.Owner = login.Owner{Scope: login.Scope(scope)}
		s.Owner.ID, _ = uuid.Parse(id)
		s.On = on == 1
		out[s.ServerID+"\x00"+s.Tool] = append(out[s.ServerID+"\x00"+s.Tool], s)
	}
	return out, rows.Err()
}

// Chain is an agent's scopes from the platform down; GuildID is uuid.Nil when the agent has none.
type Chain struct {
	OrganizationID, GuildID, AgentID uuid.UUID
}

// Owners lists the chain's owners from the least to the most specific.
func (c Chain) Owners() []login.Owner {
	out := []login.Owner{{Scope: login.ScopePlatform}}
	if c.OrganizationID != uuid.Nil {
		out = append(out, login.Owner{Scope: login.ScopeOrganization, ID: c.OrganizationID})
	}
	if c.GuildID != uuid.Nil {
		out = append(out, login.Owner{Scope: login.ScopeGuild, ID: c.GuildID})
	}
	if c.AgentID != uuid.Nil {
		out = append(out, login.Owner{Scope: login.ScopeAgent, ID: c.AgentID})
	}
	return out
}

// Effective is one tool as an agent sees it: its login, and its switch as Decide resolves it (On,
// the deciding scope From and its Rule, Drift).
type Effective struct {
	Tool
	Login Login
	Decision
	// PerScope is the switch at each scope of the chain that holds one.
	PerScope map[login.Scope]bool
}

// Effective reads the tools an agent's chain offers: per connector, the connected login of the most
// specific scope that holds one (its owner's default account there, login.DefaultOf), and each tool's
// switch resolved along the chain by Decide. Off tools are included with On false; callers that offer
// tools keep the On ones.
func (r Reader) Effective(ctx context.Context, c Chain) ([]Effective, error) {
	return r.effective(ctx, c, func(logins []Login) map[string]Login { return Defaults(logins) })
}

// EffectiveAccount is Effective for the account labelled account of one connector: the tools of the
// login with that label at the most specific scope of the chain that holds it connected (none when no
// scope does).
func (r Reader) EffectiveAccount(ctx context.Context, c Chain, serverID, account string) ([]Effective, error) {
	return r.effective(ctx, c, func(logins []Login) map[string]Login {
		chosen := map[string]Login{}
		for _, l := range logins { // least to most specific: the last wins
			if l.ServerID == serverID && l.Label() == account && l.Status == login.StatusConnected {
				chosen[l.ServerID] = l
			}
		}
		return chosen
	})
}

// Defaults picks, per connector, the login a call that names no account uses among logins sorted as
// Logins sorts them: at the most specific scope holding a connected login, its owner's default
// account (login.DefaultOf).
func Defaults(logins []Login) map[string]Login {
	type atScope struct {
		rank   int
		logins []Login
	}
	best := map[string]*atScope{}
	for _, l := range logins {
		if l.Status != login.StatusConnected {
			continue
		}
		rank := scopeRank(l.Owner.Scope)
		b := best[l.ServerID]
		switch {
		case b == nil || rank > b.rank:
			best[l.ServerID] = &atScope{rank: rank, logins: []Login{l}}
		case rank == b.rank && l.Owner == b.logins[0].Owner:
			b.logins = append(b.logins, l)
		}
	}
	chosen := make(map[string]Login, len(best))
	for id, b := range best {
		states := make([]login.State, len(b.logins))
		for i, l := range b.logins {
			states[i] = l.State
		}
		if i := login.DefaultOf(states); i >= 0 {
			chosen[id] = b.logins[i]
		}
	}
	return chosen
}

func (r Reader) effective(ctx context.Context, c Chain, choose func([]Login) map[string]Login) ([]Effective, error) {
	owners := c.Owners()
	logins, err := r.Logins(ctx, owners)
	if err != nil {
		return nil, err
	}
	off, err := r.disabled(ctx)
	if err != nil {
		return nil, err
	}
	kept := logins[:0:0]
	for _, l := range logins {
		if !off[l.ServerID] { // a switched-off connector offers nothing
			kept = append(kept, l)
		}
	}
	chosen := choose(kept)
	var ids []uuid.UUID
	for _, l := range chosen {
		ids = append(ids, l.LoginID)
	}
	tools, err := r.tools(ctx, ids)
	if err != nil {
		return nil, err
	}
	switches, err := r.Switches(ctx, owners)
	if err != nil {
		return nil, err
	}
	asks, err := r.PrefersAsk(ctx, c.OrganizationID)
	if err != nil {
		return nil, err
	}
	out := make([]Effective, 0, len(tools))
	for _, t := range tools {
		e := Effective{Tool: t, Login: chosen[t.ServerID], PerScope: map[login.Scope]bool{}}
		sw := switches[t.ServerID+"\x00"+t.Name]
		for _, s := range sw {
			e.PerScope[s.Owner.Scope] = s.On
		}
		e.Decision = Decide(sw, t, e.Login.Owner.Scope)
		if asks {
			e.Decision = StartsAsk(e.Decision) // the organisation chose Ask for what starts Off
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Prefixes returns every tool prefix on the box.
func (r Reader) Prefixes(ctx context.Context) (map[string]string, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT id, tool_prefix FROM connectors`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, p string
		if err := rows.Scan(&id, &p); err != nil {
			return nil, err
		}
		out[p] = id
	}
	return out, rows.Err()
}
