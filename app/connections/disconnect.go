package connections

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

// Disconnect removes the user's stored credential for an integration; a pending attempt ends with it.
func (s *Service) Disconnect(ctx context.Context, user uuid.UUID, integration string) error {
	if !connection.ValidIntegrationName(integration) {
		return domain.Errorf(domain.CodeNotFound, "unknown integration %q", integration)
	}
	if _, err := s.execute(ctx, user, integration, connection.Disconnect{Reason: "user request", At: s.clock()}); err != nil {
		return fmt.Errorf("disconnect %s: %w", integration, err)
	}
	return nil
}
