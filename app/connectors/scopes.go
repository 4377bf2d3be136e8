package connectors

import (
	"context"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
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
