package connectorcore

import (
	"context"
	"errors"
	"slices"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// PersonalScopes is the stand-in for the organizations read model: every user is one organization
// and one agent, both with the user's id, in no guild. A user manages exactly those two owners.
type PersonalScopes struct{}

// Chain implements Scopes.
func (PersonalScopes) Chain(_ context.Context, agentID uuid.UUID) (Chain, error) {
	return Chain{OrganizationID: agentID, AgentID: agentID}, nil
}

// DefaultAgent implements Scopes.
func (PersonalScopes) DefaultAgent(_ context.Context, userID uuid.UUID) (uuid.UUID, error) {
	return userID, nil
}

// MayManage implements Scopes.
func (PersonalScopes) MayManage(_ context.Context, userID uuid.UUID, o login.Owner) error {
	if (o.Scope == login.ScopeOrganization || o.Scope == login.ScopeAgent) && o.ID == userID {
		return nil
	}
	return domain.Errorf(domain.CodeNotFound, "no %s %s", o.Scope, o.ID)
}

// OrganizationScopes reads an agent's chain and what a user may manage from the organisations read
// model: a user manages an organisation they own or administer (and their personal one), a guild of
// such an organisation or one they are a member of, and an agent they own or whose organisation they
// administer.
type OrganizationScopes struct {
	Reader *organizationsrm.Reader
}

var (
	_ Scopes = OrganizationScopes{}
	_ Scopes = PersonalScopes{}
)

// Chain implements Scopes.
func (o OrganizationScopes) Chain(ctx context.Context, agentID uuid.UUID) (Chain, error) {
	c, err := o.Reader.Chain(ctx, agentID)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return Chain{}, domain.Errorf(domain.CodeNotFound, "no agent %s", agentID)
	}
	if err != nil {
		return Chain{}, err
	}
	return Chain{OrganizationID: c.OrganizationID, GuildID: c.GuildID, AgentID: c.AgentID}, nil
}

// DefaultAgent implements Scopes.
func (o OrganizationScopes) DefaultAgent(ctx context.Context, userID uuid.UUID) (uuid.UUID, error) {
	return o.Reader.DefaultAgent(ctx, userID)
}

// MayManage implements Scopes.
func (o OrganizationScopes) MayManage(ctx context.Context, userID uuid.UUID, owner login.Owner) error {
	notFound := domain.Errorf(domain.CodeNotFound, "no %s %s", owner.Scope, owner.ID)
	admin := func(org uuid.UUID) (bool, error) {
		if org == organization.PersonalOrganizationID(userID) {
			return true, nil
		}
		m, err := o.Reader.Membership(ctx, org, userID)
		if errors.Is(err, organizationsrm.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		return m.Role == organization.RoleOwner || m.Role == organization.RoleAdmin, nil
	}
	switch owner.Scope {
	case login.ScopeOrganization:
		ok, err := admin(owner.ID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound
		}
		return nil
	case login.ScopeGuild:
		g, err := o.Reader.Guild(ctx, owner.ID)
		if errors.Is(err, organizationsrm.ErrNotFound) {
			return notFound
		}
		if err != nil {
			return err
		}
		if slices.Contains(g.Members, userID) {
			return nil
		}
		ok, err := admin(g.OrganizationID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound
		}
		return nil
	case login.ScopeAgent:
		if owner.ID == organization.DefaultAgentID(userID) {
			return nil
		}
		a, err := o.Reader.Agent(ctx, owner.ID)
		if errors.Is(err, organizationsrm.ErrNotFound) {
			return notFound
		}
		if err != nil {
			return err
		}
		if a.OwnerID == userID {
			return nil
		}
		ok, err := admin(a.OrganizationID)
		if err != nil {
			return err
		}
		if !ok {
			return notFound
		}
		return nil
	}
	return domain.Errorf(domain.CodeForbidden, "the %s scope is not managed here", owner.Scope)
}

// ScopeName implements ScopeNamer: an organisation's, a guild's or an agent's name.
func (o OrganizationScopes) ScopeName(ctx context.Context, owner login.Owner) (string, error) {
	switch owner.Scope {
	case login.ScopeOrganization:
		org, err := o.Reader.Organization(ctx, owner.ID)
		return org.Name, err
	case login.ScopeGuild:
		g, err := o.Reader.Guild(ctx, owner.ID)
		return g.Name, err
	case login.ScopeAgent:
		a, err := o.Reader.Agent(ctx, owner.ID)
		return a.Name, err
	}
	return "", nil
}

var _ ScopeNamer = OrganizationScopes{}

// ManagedLogin reads a login the user may manage. A login the user may not manage, another
// organisation's among them, answers exactly as an id that does not exist: its owner is not named.
func (s *Core) ManagedLogin(ctx context.Context, user, loginID uuid.UUID) (connectorsrm.Login, error) {
	l, err := s.Reader.Login(ctx, loginID)
	if err != nil {
		return l, err
	}
	err = s.Opts.Scopes.MayManage(ctx, user, l.Owner)
	switch domain.ErrorCode(err) {
	case domain.CodeNotFound, domain.CodeForbidden:
		return connectorsrm.Login{}, NoLogin(loginID)
	}
	return l, err
}

// NoLogin is the answer for a login id that does not exist (projections/connectorsrm.Reader.Login's).
func NoLogin(id uuid.UUID) error { return domain.Errorf(domain.CodeNotFound, "no login %s", id) }

// ChainOf is the chain of a caller's agent. A user's default agent acts in their personal
// organisation even before the organisations read model has created it.
func (s *Core) ChainOf(ctx context.Context, user, agent uuid.UUID) (Chain, error) {
	c, err := s.Opts.Scopes.Chain(ctx, agent)
	if domain.ErrorCode(err) == domain.CodeNotFound && agent == organization.DefaultAgentID(user) {
		return Chain{OrganizationID: organization.PersonalOrganizationID(user), AgentID: agent}, nil
	}
	return c, err
}

// OrgRoles is what the catalog needs of the organisations read model beyond Scopes: a user's role in
// an organisation and a guild's organisation. Scopes that implement it (OrganizationScopes,
// PersonalScopes) answer the organisation routes; others fall back to MayManage.
type OrgRoles interface {
	// OrgRole is the user's role in org; "" when they are not a member.
	OrgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error)
	// GuildOrg is the organisation a guild belongs to (CodeNotFound when there is none).
	GuildOrg(ctx context.Context, guild uuid.UUID) (uuid.UUID, error)
}

var (
	_ OrgRoles = OrganizationScopes{}
	_ OrgRoles = PersonalScopes{}
)

// OrgRole implements OrgRoles: a user owns their personal organisation.
func (o OrganizationScopes) OrgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error) {
	if org == organization.PersonalOrganizationID(user) {
		return organization.RoleOwner, nil
	}
	m, err := o.Reader.Membership(ctx, org, user)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return m.Role, nil
}

// GuildOrg implements OrgRoles.
func (o OrganizationScopes) GuildOrg(ctx context.Context, guild uuid.UUID) (uuid.UUID, error) {
	g, err := o.Reader.Guild(ctx, guild)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no guild %s", guild)
	}
	return g.OrganizationID, err
}

// OrgRole implements OrgRoles: the user owns the organisation with their own id alone.
func (PersonalScopes) OrgRole(_ context.Context, org, user uuid.UUID) (organization.Role, error) {
	if org == user {
		return organization.RoleOwner, nil
	}
	return "", nil
}

// GuildOrg implements OrgRoles: there are no guilds.
func (PersonalScopes) GuildOrg(_ context.Context, guild uuid.UUID) (uuid.UUID, error) {
	return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no guild %s", guild)
}

// OrgRole is the user's role in org, through OrgRoles or, without it, MayManage (an organisation the
// user manages reads as admin).
func (s *Core) OrgRole(ctx context.Context, org, user uuid.UUID) (organization.Role, error) {
	if r, ok := s.Opts.Scopes.(OrgRoles); ok {
		return r.OrgRole(ctx, org, user)
	}
	err := s.Opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.ScopeOrganization, ID: org})
	switch domain.ErrorCode(err) {
	case domain.CodeNotFound, domain.CodeForbidden:
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return organization.RoleAdmin, nil
}

// OrgOf is the organisation a login owner belongs to (uuid.Nil for the platform).
func (s *Core) OrgOf(ctx context.Context, user uuid.UUID, o login.Owner) (uuid.UUID, error) {
	switch o.Scope {
	case login.ScopePlatform:
		return uuid.Nil, nil
	case login.ScopeOrganization:
		return o.ID, nil
	case login.ScopeAgent:
		c, err := s.ChainOf(ctx, user, o.ID)
		return c.OrganizationID, err
	case login.ScopeGuild:
		if r, ok := s.Opts.Scopes.(OrgRoles); ok {
			return r.GuildOrg(ctx, o.ID)
		}
	}
	return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no %s %s", o.Scope, o.ID)
}

// VisibleAt refuses, as not found, an organisation's own server to an owner of another organisation
// (spec connectors.md: another organisation's id is a 404 at Connect, at a binding, and at its routes).
func (s *Core) VisibleAt(ctx context.Context, user uuid.UUID, srv connectorsrm.Server, o login.Owner) error {
	if srv.OwnerOrgID == "" {
		return nil
	}
	org, err := s.OrgOf(ctx, user, o)
	if domain.ErrorCode(err) == domain.CodeNotFound || (err == nil && org.String() != srv.OwnerOrgID) {
		return domain.Errorf(domain.CodeNotFound, "no connector %s", srv.ID)
	}
	return err
}

// ServerAt reads a catalog row as an owner sees it: another organisation's server is not found.
func (s *Core) ServerAt(ctx context.Context, user uuid.UUID, o login.Owner, id string) (connectorsrm.Server, error) {
	srv, err := s.Reader.Server(ctx, id)
	if err != nil {
		return srv, err
	}
	return srv, s.VisibleAt(ctx, user, srv, o)
}

// ScopeNamer names a scope for the reason a tool is unavailable (OrganizationScopes does); without
// it a scope reads by its id.
type ScopeNamer interface {
	ScopeName(ctx context.Context, o login.Owner) (string, error)
}

// Home is the user's default agent and its chain: where the portal offers to connect.
func (s *Core) Home(ctx context.Context, user uuid.UUID) (uuid.UUID, Chain, error) {
	def, err := s.Opts.Scopes.DefaultAgent(ctx, user)
	if err != nil {
		return uuid.Nil, Chain{}, err
	}
	chain, err := s.ChainOf(ctx, user, def)
	return def, chain, err
}

// AgentOf is the caller's agent: the credential's, or the user's default.
func (s *Core) AgentOf(ctx context.Context, c executions.Caller) (uuid.UUID, error) {
	if c.AgentID != uuid.Nil {
		return c.AgentID, nil
	}
	return s.Opts.Scopes.DefaultAgent(ctx, c.UserID)
}
