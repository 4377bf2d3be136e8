package connectorlogins

import (
	"context"
	"sync"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcatalog"
	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/platformcall"
	"github.com/workbench/workbench/eventstore"
)

// Service is the logins of connectors and their sign-ins. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core
	// catalog is the catalog the logins are of: a dynamic OAuth client is stored on its connector.
	catalog *connectorcatalog.Service
	// Switches clears the default switches of a removed login (connectors.New wires it).
	Switches Switches

	mu sync.Mutex
	// refreshing serialises the token refreshes of each OAuth login on this replica.
	refreshing map[uuid.UUID]*sync.Mutex
	// installTokens are the GitHub App installation access tokens this replica holds, by login.
	installTokens map[uuid.UUID]installToken
	// syncs asks the platform login sync to run; syncing serialises the syncs of this replica
	// (platformlogins.go).
	syncs   chan struct{}
	syncing sync.Mutex
}

// Switches clears switches on a scope's switch stream (the stream the switches use case owns).
type Switches interface {
	ClearSwitches(ctx context.Context, actor string, ev login.SwitchesCleared) error
}

// New is the logins over core and the catalog.
func New(core *connectorcore.Core, catalog *connectorcatalog.Service) *Service {
	return &Service{Core: core, catalog: catalog, syncs: make(chan struct{}, 1)}
}

var (
	// loginAggregate is a login's stream: its connect, sign-ins, refreshes, listings, settings and
	// removal, one decider (login.Decide).
	loginAggregate = eventstore.Aggregate[login.State, login.Command, domain.Event]{
		Initial: login.Initial, Evolve: login.Evolve, Decide: login.Decide,
		Codec: eventstore.NewJSONCodec(login.Events()...),
	}
	// callAggregate is an organisation's monthly count of calls on a platform login of one connector
	// (domain/platformcall, platformlogins.go).
	callAggregate = eventstore.Aggregate[platformcall.State, platformcall.Count, domain.Event]{
		Initial: platformcall.Initial, Evolve: platformcall.Evolve, Decide: platformcall.Decide,
		Codec: eventstore.NewJSONCodec(platformcall.Events()...),
	}
)

func (s *Service) executeLogin(ctx context.Context, actor string, stream string, cmd login.Command) (eventstore.Result[login.State, domain.Event], error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, stream, loginAggregate, cmd, s.MD(actor))
	if err != nil {
		return res, err
	}
	return res, s.Wait(ctx, res.Position, len(res.Events))
}

func loadState(ctx context.Context, s *Service, stream string) (login.State, int64, error) {
	return eventstore.LoadState(ctx, s.Opts.Store, stream, loginAggregate)
}
