package connectorsrm

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/login"
)

// RuleSet is the rule of a switch someone set (toolswitch.set); every other rule names the default
// a listing wrote (plugins/connector: admin_default, mutating, policy_default_off, ...).
const RuleSet = "set"

// RuleAdminDefault is the rule of the instance admin's default for a plugin tool (a switch set with
// login.SwitchSet.Default): a default, which any scope's explicit switch overrides.
const RuleAdminDefault = "admin_default"

// Explicit reports whether someone set the switch, as opposed to a listing's default.
func (s Switch) Explicit() bool { return s.Rule == RuleSet }

// Decision is a tool's switch resolved along a chain.
type Decision struct {
	On bool
	// From is the scope whose switch decided (zero Scope when none holds one: Off).
	From login.Owner
	// Rule is the deciding switch's rule: RuleSet for an explicit choice, else the default's rule.
	Rule string
	// Drift: the description, or the input schema or annotations, changed since the deciding switch
	// turned the tool On.
	Drift bool
	// Ask: the tool is On, and every call waits for a person's approval (an explicit Ask at some
	// scope of the chain: a higher scope's binds the scopes below, a lower scope's tightens).
	Ask bool
}

// Explicit reports whether an explicit switch decided.
func (d Decision) Explicit() bool { return d.Rule == RuleSet }

// Decide is the one place a tool's switch is resolved from the switches of one chain (any order;
// at most one per scope), listed being the tool as listed now (its description and schema digests
// decide drift; the zero Tool when not asked) and loginScope
// the scope of the login the call would use ("" when not known). Scopes nest platform → organization
// → guild → agent, and:
//
//  1. An explicit Off at any scope binds every scope below it: the highest such Off decides, whatever
//     a lower scope holds, whichever login the call would use.
//  2. Else a default Off at the login's own scope (what its listing wrote: mutating, default_off,
//     destructive, a writing verb) binds the scopes below it, unless someone switched the tool On
//     explicitly above it: the credential's owner has not let the tool run, and a lower scope cannot
//     widen that. An explicit On at that scope (it replaces the default) or above lifts it. The
//     defaults other logins wrote bind nothing: they speak for their own credentials.
//  3. Else the most specific explicit On decides: a default never overrides an explicit choice.
//  4. Else the most specific default decides.
//  5. No switch at all is Off.
//
// A tool that is On asks (Ask) when any scope of the chain switched it to Ask explicitly: Off > Ask >
// On, so a lower scope may tighten a higher scope's Ask to Off but never loosen it to On, and a
// lower scope's Ask tightens a higher scope's On.
func Decide(switches []Switch, listed Tool, loginScope login.Scope) Decision {
	var off, on, def *Switch
	for i := range switches {
		s := &switches[i]
		r := scopeRank(s.Owner.Scope)
		switch {
		case s.Explicit() && !s.On:
			if off == nil || r < scopeRank(off.Owner.Scope) {
				off = s
			}
		case s.Explicit():
			if on == nil || r > scopeRank(on.Owner.Scope) {
				on = s
			}
		default:
			if def == nil || r > scopeRank(def.Owner.Scope) {
				def = s
			}
		}
	}
	d := off
	if d == nil && loginScope != "" {
		lifted := false
		var held *Switch
		for i := range switches {
			sw := &switches[i]
			switch {
			case sw.Explicit() && sw.On && scopeRank(sw.Owner.Scope) < scopeRank(loginScope):
				lifted = true
			case !sw.Explicit() && !sw.On && sw.Owner.Scope == loginScope:
				held = sw
			}
		}
		if !lifted {
			d = held
		}
	}
	if d == nil {
		d = on
	}
	if d == nil {
		d = def
	}
	if d == nil {
		return Decision{}
	}
	out := Decision{On: d.On, From: d.Owner, Rule: d.Rule, Drift: d.On && drifted(*d, listed)}
	if out.On {
		for i := range switches {
			if sw := &switches[i]; sw.Explicit() && sw.On && sw.Ask {
				out.Ask = true
				break
			}
		}
	}
	return out
}

// drifted reports whether a tool as listed differs from what an On switch accepted. A digest the
// switch does not hold is not compared (a switch set before the tool was listed).
func drifted(s Switch, listed Tool) bool {
	return s.DescriptionSHA != "" && s.DescriptionSHA != listed.DescriptionSHA ||
		s.SchemaSHA != "" && listed.SchemaSHA != "" && s.SchemaSHA != listed.SchemaSHA
}

// ToolOwners lists the owners of the logins that list a connector's tool of that (prefixed) name and
// of the scopes holding a switch that names it.
func (r Reader) ToolOwners(ctx context.Context, serverID, name string) ([]login.Owner, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT c.owner_scope, c.owner_id FROM mcp_tools t JOIN mcp_connections c ON c.id = t.login_id
		WHERE t.server_id = $1 AND t.name = $2
		UNION SELECT scope, scope_id FROM mcp_tool_switches WHERE server_id = $1 AND tool = $2`, serverID, name)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []login.Owner
	for rows.Next() {
		var scope, id string
		if err := rows.Scan(&scope, &id); err != nil {
			return nil, err
		}
		o := login.Owner{Scope: login.Scope(scope)}
		o.ID, _ = uuid.Parse(id)
		out = append(out, o)
	}
	return out, rows.Err()
}

// startOffRules are the rules of a default that holds a tool Off until someone switches it: what an
// organisation may choose to have ask instead (not the instance admin's default, nor a switch set).
var startOffRules = map[string]bool{"mutating": true, "destructive_hint": true, "writing_verb": true, "policy_default_off": true} // plugins/connector's rules

// StartsAsk turns a decision held Off only by a tool's start-Off rule into Ask (On, each call waiting
// for a person's approval): an organisation that chose login.StartsAsk for its agents. An explicit Off,
// the instance admin's default and an On decision are left as they are.
func StartsAsk(d Decision) Decision {
	if d.On || d.Explicit() || !startOffRules[d.Rule] {
		return d
	}
	d.On, d.Ask = true, true
	return d
}

// PrefersAsk reports whether an organisation chose that its tools that start Off ask instead.
func (r Reader) PrefersAsk(ctx context.Context, org uuid.UUID) (bool, error) {
	if org == uuid.Nil {
		return false, nil
	}
	var v string
	err := r.DB.QueryRowContext(ctx, `SELECT mutating_starts_as FROM tool_start_preferences WHERE scope = $1 AND scope_id = $2`,
		string(login.ScopeOrganization), org.String()).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return v == login.StartsAsk, err
}
