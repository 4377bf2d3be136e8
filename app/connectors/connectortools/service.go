package connectortools

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

// Service is the tools of connector logins and their switches. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core
	// logins are the logins whose tools these are: their credentials refreshed, their listings, their
	// platform calls counted.
	logins *connectorlogins.Service

	hot      *hot
	mu       sync.Mutex
	flights  map[uuid.UUID]chan struct{} // run-start listings under way, by login
	failedAt map[uuid.UUID]time.Time     // the last failed run-start listing of a login
}

// New is the tools over core and the logins; the cache of the tool-call path clears after every write
// of any connector use case (core.AfterWrite).
func New(core *connectorcore.Core, logins *connectorlogins.Service) *Service {
	s := &Service{Core: core, logins: logins, hot: newHot(core.Opts.CacheTTL), flights: map[uuid.UUID]chan struct{}{}, failedAt: map[uuid.UUID]time.Time{}}
	core.AfterWrite(s.hot.invalidate)
	return s
}

var (
	// switchAggregate is a scope's switch stream: SetSwitch and ClearSwitches, one decider.
	switchAggregate = eventstore.Aggregate[login.SwitchState, login.SwitchCommand, domain.Event]{
		Initial: func() login.SwitchState { return login.SwitchState{} }, Evolve: login.EvolveSwitch, Decide: login.DecideSwitch,
		Codec: eventstore.NewJSONCodec(login.SwitchEvents()...),
	}
)

// The narrow interfaces the use cases below reach the switch streams through (connectors.New wires them).
var (
	_ connectorcatalog.Dependents = (*Service)(nil)
	_ connectorlogins.Switches    = (*Service)(nil)
)

// RemoveServerDependents implements connectorcatalog.Dependents: every login of the server (its
// switches at the login's scope cleared, its credential shredded, login.removed) and the switches
// other scopes hold for it (toolswitch.cleared).
func (s *Service) RemoveServerDependents(ctx context.Context, actor string, srv connectorsrm.Server) error {
	logins, err := s.Reader.ServerLogins(ctx, srv.ID)
	if err != nil {
		return err
	}
	for _, l := range logins {
		if err := s.logins.RemoveLogin(ctx, actor, l.State, "the server was deleted"); err != nil {
			return err
		}
	}
	owners, err := s.Reader.SwitchOwners(ctx, srv.ID)
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
