package connectorstest

import (
	"context"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/organization"
)

var _ connectors.OrgRoles = (*Scopes)(nil)

// OrgRole implements connectors.OrgRoles: the role Roles gives; without Roles, User owns Org.
func (s *Scopes) OrgRole(_ context.Context, org, user uuid.UUID) (organization.Role, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Roles == nil {
		if org == Org && user == User {
			return organization.RoleOwner, nil
		}
		return "", nil
	}
	return s.Roles[org][user], nil
}

// SetRole gives user a role in org ("" removes them).
func (s *Scopes) SetRole(org, user uuid.UUID, role organization.Role) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Roles == nil {
		s.Roles = map[uuid.UUID]map[uuid.UUID]organization.Role{Org: {User: organization.RoleOwner}}
	}
	if s.Roles[org] == nil {
		s.Roles[org] = map[uuid.UUID]organization.Role{}
	}
	s.Roles[org][user] = role
}

// AddAgent puts an agent in an organisation, in no guild.
func (s *Scopes) AddAgent(org, agent uuid.UUID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Chains[agent] = connectors.Chain{OrganizationID: org, AgentID: agent}
}

// GuildOrg implements connectors.OrgRoles from the agents' chains.
func (s *Scopes) GuildOrg(_ context.Context, guild uuid.UUID) (uuid.UUID, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.Chains {
		if c.GuildID == guild {
			return c.OrganizationID, nil
		}
	}
	return uuid.Nil, domain.Errorf(domain.CodeNotFound, "no guild %s", guild)
}
