package connectortools

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Switches (spec connectors.md, Bindings for tools). A tool's switch along an agent's chain is
// resolved in one place, connectors.Decide: an explicit Off at a scope binds every scope below it,
// whichever login the call would use, and a default never overrides an explicit choice. Offering,
// search_tools, get_tool_schema, execute_tools, the login views and the portal test call all read
// that decision. A scope below an explicit Off cannot turn the tool On (SetSwitch refuses it): only
// someone who may change the binding switch lifts it, at its own scope.

// SetSwitch turns one tool On or Off at a scope the user manages (PUT /api/mcp/switches). The
// platform's switches are the instance admin's (SetPlatformSwitch). A tool the connector does not
// have is CodeUnprocessable; an On below a scope that switched the tool Off is CodeConflict, naming
// that scope.
func (s *Service) SetSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, serverID, tool string, on bool) error {
	return s.setScopeSwitch(ctx, user, owner, serverID, tool, on, false)
}

// AskSwitch switches a connector tool to Ask at a scope the user manages: On, and every call of it
// by an agent below waits for a person's approval. As for On, a scope above that holds the tool Off
// refuses it.
func (s *Service) AskSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, serverID, tool string) error {
	return s.setScopeSwitch(ctx, user, owner, serverID, tool, true, true)
}

func (s *Service) setScopeSwitch(ctx context.Context, user uuid.UUID, owner login.Owner, serverID, tool string, on, ask bool) error {
	if owner.Scope == login.ScopePlatform {
		return domain.Errorf(domain.CodeForbidden, "the platform's switches are the instance admin's")
	}
	if err := s.Opts.Scopes.MayManage(ctx, user, owner); err != nil {
		return err
	}
	if _, err := s.ServerAt(ctx, user, owner, serverID); err != nil {
		return err
	}
	if err := s.knownTool(ctx, user, owner, serverID, tool); err != nil {
		return err
	}
	if on {
		reason, err := s.boundOff(ctx, user, owner, serverID, tool)
		if err != nil {
			return err
		}
		if reason != "" {
			return domain.Errorf(domain.CodeConflict, "%s is %s; a scope below it cannot turn it On, only whoever manages that scope can", tool, reason)
		}
	}
	sha, schema := "", ""
	if on {
		sha, schema = s.currentDigests(ctx, serverID, tool)
	}
	ev := login.SwitchSet{Owner: owner, ServerID: serverID, Tool: tool, On: on, Ask: ask, DescriptionSHA: sha, SchemaSHA: schema, By: user.String(), At: s.Opts.Now()}
	return s.setSwitch(ctx, user.String(), ev)
}

// SetPlatformSwitch is the instance admin's switch at the platform scope (the caller checks that
// actor is one); it binds every organisation.
func (s *Service) SetPlatformSwitch(ctx context.Context, actor, serverID, tool string, on bool) error {
	if _, err := s.Reader.Server(ctx, serverID); err != nil {
		return err
	}
	if err := s.knownTool(ctx, uuid.Nil, login.Owner{Scope: login.ScopePlatform}, serverID, tool); err != nil {
		return err
	}
	sha, schema := "", ""
	if on {
		sha, schema = s.currentDigests(ctx, serverID, tool)
	}
	return s.setSwitch(ctx, actor, login.SwitchSet{Owner: login.Owner{Scope: login.ScopePlatform}, ServerID: serverID, Tool: tool, On: on, DescriptionSHA: sha, SchemaSHA: schema, By: actor, At: s.Opts.Now()})
}

func (s *Service) setSwitch(ctx context.Context, actor string, ev login.SwitchSet) error {
	res, err := executeSwitch(ctx, s, actor, ev)
	if err != nil {
		return err
	}
	return s.Wait(ctx, res, 1)
}

// currentDigests are the description and schema digests of a tool as any login of the connector
// lists it: what a switch turned On accepts (turning an On tool On again accepts its drift).
func (s *Service) currentDigests(ctx context.Context, serverID, tool string) (description, schema string) {
	var raw string
	var ro, de sql.NullBool
	err := s.Opts.DB.QueryRowContext(ctx, `SELECT description_sha, input_schema, read_only_hint, destructive_hint FROM mcp_tools
		WHERE server_id = $1 AND name = $2 LIMIT 1`, serverID, tool).Scan(&description, &raw, &ro, &de)
	if err != nil {
		return "", "" // not listed: the read model fills what the next listing says
	}
	hint := func(b sql.NullBool) *bool {
		if !b.Valid {
			return nil
		}
		return &b.Bool
	}
	return description, login.SchemaSHA(json.RawMessage(raw), hint(ro), hint(de))
}

// knownTool refuses a tool name the connector has not, as owner's organisation sees it: its manifest
// does not name it, and no login of the platform or of that organisation (its guilds and agents
// included) lists it, nor does a switch there name it. Another organisation's listing does not count:
// a remote may list per-account tools, and the answer must not tell their names.
func (s *Service) knownTool(ctx context.Context, user uuid.UUID, owner login.Owner, serverID, tool string) error {
	if srv, err := s.Reader.Server(ctx, serverID); err == nil {
		if m, err := s.ManifestOf(srv); err == nil {
			for _, t := range m.Tools {
				if connector.ModelName(srv.ToolPrefix, t.Name) == tool {
					return nil
				}
			}
		}
	}
	holders, err := s.Reader.ToolOwners(ctx, serverID, tool)
	if err != nil {
		return err
	}
	org := uuid.Nil
	if owner.Scope != login.ScopePlatform {
		if org, err = s.OrgOf(ctx, user, owner); err != nil {
			return err
		}
	}
	for _, h := range holders {
		if h.Scope == login.ScopePlatform || owner.Scope == login.ScopePlatform {
			return nil
		}
		if o, err := s.OrgOf(ctx, user, h); err == nil && o == org {
			return nil
		}
	}
	return domain.Errorf(domain.CodeUnprocessable, "%s has no tool %s", serverID, tool)
}

// ownerChain is the chain from the platform down to owner itself.
func (s *Service) ownerChain(ctx context.Context, user uuid.UUID, o login.Owner) (Chain, error) {
	switch o.Scope {
	case login.ScopePlatform:
		return Chain{}, nil
	case login.ScopeOrganization:
		return Chain{OrganizationID: o.ID}, nil
	case login.ScopeGuild:
		org, err := s.OrgOf(ctx, user, o)
		return Chain{OrganizationID: org, GuildID: o.ID}, err
	case login.ScopeAgent:
		return s.ChainOf(ctx, user, o.ID)
	}
	return Chain{}, domain.Errorf(domain.CodeInvalid, "no scope %q", o.Scope)
}

// boundOff is why a tool is switched Off for owner by a scope above it ("switched Off by organisation
// Acme"), or "" when no scope above holds an explicit Off.
func (s *Service) boundOff(ctx context.Context, user uuid.UUID, owner login.Owner, serverID, tool string) (string, error) {
	chain, err := s.ownerChain(ctx, user, owner)
	if err != nil {
		return "", err
	}
	var above []login.Owner
	for _, o := range chain.Owners() {
		if rank(o.Scope) < rank(owner.Scope) {
			above = append(above, o)
		}
	}
	switches, err := s.Reader.Switches(ctx, above)
	if err != nil {
		return "", err
	}
	d, bound := boundAbove(switches[serverID+"\x00"+tool], owner)
	if !bound {
		return "", nil
	}
	return "switched Off by " + s.scopeLabel(ctx, d.From), nil
}

// boundAbove is the explicit Off that a scope above owner holds among a chain's switches of one tool,
// and whether there is one: what keeps owner from turning the tool On.
func boundAbove(switches []connectorsrm.Switch, owner login.Owner) (connectorsrm.Decision, bool) {
	var above []connectorsrm.Switch
	for _, sw := range switches {
		if rank(sw.Owner.Scope) < rank(owner.Scope) {
			above = append(above, sw)
		}
	}
	d := connectorsrm.Decide(above, connectorsrm.Tool{}, "")
	return d, !d.On && d.Explicit()
}

// whyOff says why a tool the chain holds is not offered ("" when it is On).
func (s *Service) whyOff(ctx context.Context, d connectorsrm.Decision) string {
	switch {
	case d.On:
		return ""
	case d.From.Scope == "":
		return "not switched On at any scope"
	case d.Explicit():
		return "switched Off by " + s.scopeLabel(ctx, d.From)
	}
	return fmt.Sprintf("Off by default at %s (%s) until someone who manages a scope turns it On", s.scopeLabel(ctx, d.From), d.Rule)
}

// scopeLabel names a scope for a person: "the platform", "organisation Acme", "guild Team",
// "agent ada-bot" (its id when it has no name to read).
func (s *Service) scopeLabel(ctx context.Context, o login.Owner) string {
	word := map[login.Scope]string{login.ScopeOrganization: "organisation", login.ScopeGuild: "guild", login.ScopeAgent: "agent"}[o.Scope]
	switch {
	case o.Scope == login.ScopePlatform:
		return "the platform"
	case word == "":
		return string(o.Scope) + " " + o.ID.String()
	}
	if n, ok := s.Opts.Scopes.(connectorcore.ScopeNamer); ok {
		if name, err := n.ScopeName(ctx, o); err == nil && name != "" {
			return word + " " + name
		}
	}
	return word + " " + o.ID.String()
}
