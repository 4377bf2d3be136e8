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

// RevokeClient is the portal's revocation of an MCP client: every grant user gave the client loses its
// refresh tokens and its outstanding code (one event each, reason "user"), and the read model has
// applied them when it returns. Access tokens already issued are self-contained and lapse at their
// TTL. A client that holds nothing revocable of the user's is CodeNotFound.
func (s *Service) RevokeClient(ctx context.Context, user uuid.UUID, clientID string, o Origin) error {
	grants, err := s.grants.RevocableGrants(ctx, user, clientID)
	if err != nil {
		return err
	}
	if len(grants) == 0 {
		return domain.Errorf(domain.CodeNotFound, "no MCP client %q holds tokens on your account", clientID)
	}
	var last eventstore.Position
	for _, id := range grants {
		res, err := eventstore.Execute(ctx, s.store, oauthdom.GrantStreamName(id), grantAgg,
			oauthdom.GrantCommand(oauthdom.RevokeForUser{UserID: user, At: s.now()}), o.metadata())
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
