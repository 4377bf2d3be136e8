package connectors

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Service is the connectors use case. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core

	hot      *hot
	flights  map[uuid.UUID]chan struct{} // run-start listings under way, by login
	failedAt map[uuid.UUID]time.Time     // the last failed run-start listing of a login
	// refreshing serialises the token refreshes of each OAuth login on this replica.
	refreshing map[uuid.UUID]*sync.Mutex
	// installTokens are the GitHub App installation access tokens this replica holds, by login.
	installTokens map[uuid.UUID]installToken
	// syncs asks the platform login sync to run; syncing serialises the syncs of this replica
	// (platformlogins.go).
	syncs   chan struct{}
	syncing sync.Mutex
	// index is the last registry index fetched from RegistryURL (registryurl.go).
	index registryIndexCache
	mu    sync.Mutex
}

var (
	loginAggregate = eventstore.Aggregate[login.State, login.Command, domain.Event]{
		Initial: login.Initial, Evolve: login.Evolve, Decide: login.Decide,
		Codec: eventstore.NewJSONCodec(login.Events()...),
	}
	// switchAggregate is a scope's switch stream: SetSwitch and ClearSwitches, one decider.
	switchAggregate = eventstore.Aggregate[login.SwitchState, login.SwitchCommand, domain.Event]{
		Initial: func() login.SwitchState { return login.SwitchState{} }, Evolve: login.EvolveSwitch, Decide: login.DecideSwitch,
		Codec: eventstore.NewJSONCodec(login.SwitchEvents()...),
	}
	// connectorAggregate is a connector's stream: its installs, its OAuth clients and the catalog's
	// edits of its row, one decider for them all (connectordom.Decide).
	connectorAggregate = eventstore.Aggregate[connectordom.State, connectordom.Command, domain.Event]{
		Initial: connectordom.Initial, Evolve: connectordom.Evolve, Decide: connectordom.Decide,
		Codec: eventstore.NewJSONCodec(connectordom.Events()...),
	}
)

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	core, err := connectorcore.New(opts)
	if err != nil {
		return nil, err
	}
	s := &Service{Core: core, flights: map[uuid.UUID]chan struct{}{}, failedAt: map[uuid.UUID]time.Time{}, hot: newHot(core.Opts.CacheTTL),
		syncs: make(chan struct{}, 1)}
	core.AfterWrite(s.hot.invalidate)
	return s, nil
}

// Reader is the read model the service reads.
func (s *Service) Reader() connectorsrm.Reader { return s.Core.Reader }

func (s *Service) executeLogin(ctx context.Context, actor string, stream string, cmd login.Command) (eventstore.Result[login.State, domain.Event], error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, stream, loginAggregate, cmd, s.MD(actor))
	if err != nil {
		return res, err
	}
	return res, s.Wait(ctx, res.Position, len(res.Events))
}
