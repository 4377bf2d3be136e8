package oauthclients

import (
	"context"
	"errors"
	"fmt"

	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/oauthrm"
)

// ErrNotYetReadable says a write was recorded but the read model could not be seen to apply it: the
// registration stands, and reading it may succeed shortly.
var ErrNotYetReadable = errors.New("oauthclients: recorded, but the read model has not applied it yet")

// Register records a dynamically registered client (RFC 7591) on its own stream and waits until the
// oauth read model has it, so the client's first authorization request finds it. The refusals of
// domain/oauthdom (ErrInvalidRedirectURI, ErrInvalidClientMetadata) come back as they are; a failed wait
// after the append is ErrNotYetReadable.
func (s *Service) Register(ctx context.Context, cmd oauthdom.RegisterClient, o Origin) (oauthdom.Client, error) {
	res, err := eventstore.Execute(ctx, s.store, oauthdom.ClientStreamName(cmd.ClientID), clientAgg, cmd, o.metadata())
	if err != nil {
		return oauthdom.Client{}, err
	}
	if err := s.wait.WaitForProjection(ctx, oauthrm.Name, res.Position); err != nil {
		return oauthdom.Client{}, fmt.Errorf("%w: %w", ErrNotYetReadable, err)
	}
	return res.State, nil
}
