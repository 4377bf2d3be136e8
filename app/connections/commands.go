package connections

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
)

// The aggregates this package writes, each as its one eventstore.Aggregate value: the domain's fold
// and decide functions with the codec of its events. The functions below are the only place in the
// repository that runs the command loop (eventstore.Execute) on these streams.
var (
	// connectionAggregate is one account of a user's connection to one integration (stream
	// connection-<user>-<integration>[.<account>], connection.StreamName).
	connectionAggregate = eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
		Initial: connection.Initial, Evolve: connection.Evolve, Decide: connection.Decide,
		Codec: eventstore.NewJSONCodec(connection.Events()...),
	}
	// handshakeAggregate is one OAuth handshake, named by the hash of its state.
	handshakeAggregate = eventstore.Aggregate[connection.Handshake, connection.HandshakeCommand, domain.Event]{
		Initial: connection.InitialHandshake, Evolve: connection.EvolveHandshake, Decide: connection.DecideHandshake,
		Codec: eventstore.NewJSONCodec(connection.HandshakeEvents()...),
	}
	// leaseAggregate is a connection's refresh lease: who may present the refresh token now.
	leaseAggregate = eventstore.Aggregate[connection.RefreshLease, connection.ClaimRefresh, domain.Event]{
		Initial: connection.InitialRefreshLease, Evolve: connection.EvolveRefreshLease, Decide: connection.DecideRefreshLease,
		Codec: eventstore.NewJSONCodec(connection.RefreshLeaseEvents()...),
	}
)

// md is the metadata of an event the user caused.
func (s *Service) md(user uuid.UUID) eventstore.Metadata {
	return eventstore.Metadata{Actor: user.String(), Time: s.clock()}
}

// execute runs one command on one account's connection stream and waits until the read models hold
// its events, so that the caller's next read (list_integrations, a tool call, a wait) sees them on
// this replica.
func (s *Service) execute(ctx context.Context, user uuid.UUID, integration, account string, cmd connection.Command) (eventstore.Result[connection.State, domain.Event], error) {
	return s.executeWith(ctx, user, integration, account, cmd, s.md(user))
}

// executeWith is execute with the events' metadata given (a connect that names its MCP client).
func (s *Service) executeWith(ctx context.Context, user uuid.UUID, integration, account string, cmd connection.Command, md eventstore.Metadata) (eventstore.Result[connection.State, domain.Event], error) {
	res, err := eventstore.Execute(ctx, s.store, connection.StreamName(user, integration, account), connectionAggregate, cmd, md)
	if err != nil {
		return res, err
	}
	if len(res.Events) > 0 {
		if err := s.runner.WaitFor(ctx, res.Position); err != nil {
			return res, fmt.Errorf("wait for the read models: %w", err)
		}
	}
	return res, nil
}

// loadConnection folds one account's connection stream from the log (not the read model) and returns
// its version.
func (s *Service) loadConnection(ctx context.Context, user uuid.UUID, integration, account string) (connection.State, int64, error) {
	st, v, err := eventstore.LoadState(ctx, s.store, connection.StreamName(user, integration, account), connectionAggregate)
	if err != nil {
		return st, 0, fmt.Errorf("load connection %s: %w", integration, err)
	}
	return st, v, nil
}

// executeHandshake runs one command on the handshake stream of a state's hash, as user.
func (s *Service) executeHandshake(ctx context.Context, stateHash string, user uuid.UUID, cmd connection.HandshakeCommand) error {
	_, err := eventstore.Execute(ctx, s.store, connection.HandshakeStreamName(stateHash), handshakeAggregate, cmd, s.md(user))
	return err
}

// loadHandshake folds the handshake stream of a state's hash (a zero Handshake when there is none).
func (s *Service) loadHandshake(ctx context.Context, stateHash string) (connection.Handshake, error) {
	h, _, err := eventstore.LoadState(ctx, s.store, connection.HandshakeStreamName(stateHash), handshakeAggregate)
	return h, err
}

// claimRefresh records a claim on a credential generation in the connection's refresh lease stream:
// connection.ErrRefreshClaimed when another caller holds it, connection.ErrCredentialChanged when the
// generation is no longer current.
func (s *Service) claimRefresh(ctx context.Context, claim connection.ClaimRefresh) error {
	_, err := eventstore.Execute(ctx, s.store, connection.RefreshLeaseStreamName(claim.UserID, claim.Integration, claim.Account), leaseAggregate, claim, s.md(claim.UserID))
	return err
}
