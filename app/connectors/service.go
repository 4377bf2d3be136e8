package connectors

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors/connectorcatalog"
	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/app/connectors/connectorlogins"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// The use cases a Service composes.
type (
	catalog = connectorcatalog.Service
	logins  = connectorlogins.Service
)

// Service is the connectors use case. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core
	*catalog
	*logins

	hot      *hot
	flights  map[uuid.UUID]chan struct{} // run-start listings under way, by login
	failedAt map[uuid.UUID]time.Time     // the last failed run-start listing of a login
	mu       sync.Mutex
}

var (
	// switchAggregate is a scope's switch stream: SetSwitch and ClearSwitches, one decider.
	switchAggregate = eventstore.Aggregate[login.SwitchState, login.SwitchCommand, domain.Event]{
		Initial: func() login.SwitchState { return login.SwitchState{} }, Evolve: login.EvolveSwitch, Decide: login.DecideSwitch,
		Codec: eventstore.NewJSONCodec(login.SwitchEvents()...),
	}
)

// New checks opts and returns a Service.
func New(opts Options) (*Service, error) {
	core, err := connectorcore.New(opts)
	if err != nil {
		return nil, err
	}
	s := &Service{Core: core, catalog: connectorcatalog.New(core), flights: map[uuid.UUID]chan struct{}{}, failedAt: map[uuid.UUID]time.Time{}, hot: newHot(core.Opts.CacheTTL)}
	core.AfterWrite(s.hot.invalidate)
	s.logins = connectorlogins.New(core, s.catalog)
	s.catalog.Dependents = s
	s.logins.Switches = s
	return s, nil
}

// RemoveServerDependents implements connectorcatalog.Dependents: every login of the server (its
// switches at the login's scope cleared, its credential shredded, login.removed) and the switches
// other scopes hold for it (toolswitch.cleared).
func (s *Service) RemoveServerDependents(ctx context.Context, actor string, srv connectorsrm.Server) error {
	logins, err := s.Core.Reader.ServerLogins(ctx, srv.ID)
	if err != nil {
		return err
	}
	for _, l := range logins {
		if err := s.RemoveLogin(ctx, actor, l.State, "the server was deleted"); err != nil {
			return err
		}
	}
	owners, err := s.Core.Reader.SwitchOwners(ctx, srv.ID)
	if err != nil {
		return err
	}
	for _, sw := range owners {
		if err := s.ClearSwitches(ctx, actor, login.SwitchesCleared{Owner: sw.Owner, ServerID: srv.ID, Reason: "the server was deleted", At: s.Opts.Now()}); err != nil {
			return err
		}
	}
	return nil
}

// Reader is the read model the service reads.
func (s *Service) Reader() connectorsrm.Reader { return s.Core.Reader }
