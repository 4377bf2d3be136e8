package oauthclients

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/oauthrm"
)

// RevokeAgentGrants retires every grant user made for agent, because the agent was deleted: the
// outstanding code and the refresh tokens stop (as the portal's revocation does), and so do the
// access tokens already issued (reason agent_deleted), which /mcp then refuses at once. The read model
// has applied it when it returns. An agent without grants is nothing to do.
func (s *Service) RevokeAgentGrants(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) error {
	grants, err := s.grants.AgentGrants(ctx, user, agent)
	if err != nil {
		return err
	}
	var last eventstore.Position
	for _, id := range grants {
		at := s.now()
		res, err := eventstore.Execute(ctx, s.store, oauthdom.GrantStreamName(id), grantAgg,
			oauthdom.GrantCommand(oauthdom.Batch{
				oauthdom.RevokeForUser{UserID: user, At: at},
				oauthdom.RevokeAccessTokens{Reason: oauthdom.ReasonAgentDeleted, At: at},
			}), md)
		if domain.ErrorCode(err) == domain.CodeNotFound {
			continue
		}
		if err != nil {
			return fmt.Errorf("revoke grant %s: %w", id, err)
		}
		if len(res.Events) > 0 {
			last = res.Position
		}
	}
	if !last.IsZero() {
		if err := s.wait.WaitForProjection(ctx, oauthrm.Name, last); err != nil {
			return err
		}
	}
	return nil
}
