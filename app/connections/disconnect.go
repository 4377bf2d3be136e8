package connections

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
)

// Disconnect removes the stored credential of one of the user's accounts of an integration (empty:
// the default account); a pending attempt of that account ends with it. The user's other accounts
// keep working; if the default went, the oldest remaining account becomes the default
// (connection.DefaultOf).
func (s *Service) Disconnect(ctx context.Context, user uuid.UUID, integration, account string) error {
	if !connection.ValidIntegrationName(integration) {
		return domain.Errorf(domain.CodeNotFound, "unknown integration %q", integration)
	}
	account, err := s.accountOrDefault(ctx, user, integration, account)
	if err != nil {
		return err
	}
	if _, err := s.execute(ctx, user, integration, account, connection.Disconnect{Reason: "user request", At: s.clock()}); err != nil {
		return fmt.Errorf("disconnect %s (account %s): %w", integration, account, err)
	}
	return nil
}

// ChooseDefault makes one of the user's accounts of an integration the default: the account a tool
// call, a curl_session or a connect without a label uses.
func (s *Service) ChooseDefault(ctx context.Context, user uuid.UUID, integration, account string) error {
	if !connection.ValidIntegrationName(integration) {
		return domain.Errorf(domain.CodeNotFound, "unknown integration %q", integration)
	}
	if account == "" {
		return domain.Errorf(domain.CodeInvalid, "name the account to make the default")
	}
	account, err := s.accountOrDefault(ctx, user, integration, account)
	if err != nil {
		return err
	}
	if _, err := s.execute(ctx, user, integration, account, connection.ChooseDefault{At: s.clock()}); err != nil {
		return fmt.Errorf("choose %s's default account %s: %w", integration, account, err)
	}
	return nil
}
