package oauthclients

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
)

// Waiter is the part of projections.Runner the service needs to read its own writes.
type Waiter interface {
	WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error
}

// Grants is the part of the oauth read model the portal's revocation needs.
type Grants interface {
	// RevocableGrants returns the request ids of user's grants to client that still hold an outstanding
	// code or a live refresh-token family.
	RevocableGrants(ctx context.Context, user uuid.UUID, clientID string) ([]string, error)
	// AgentGrants returns the request ids of user's grants acting as agent that still hold anything
	// revocable.
	AgentGrants(ctx context.Context, user, agent uuid.UUID) ([]string, error)
}

// Options configure a Service; all but Logger are required.
type Options struct {
	Store       eventstore.Store // the event log
	Projections Waiter           // *projections.Runner, for read-your-writes
	Grants      Grants           // the oauth read model (projections/oauthrm.Reader)
	Logger      *slog.Logger
	// Now is the clock of the times the service records itself (default time.Now).
	Now func() time.Time
}

// Service records the authorization server's clients and grants.
type Service struct {
	store  eventstore.Store
	wait   Waiter
	grants Grants
	log    *slog.Logger
	clock  func() time.Time
}

// New checks opts and returns the service.
func New(opts Options) (*Service, error) {
	if opts.Store == nil || opts.Projections == nil || opts.Grants == nil {
		return nil, errors.New("oauthclients: Store, Projections and Grants are required")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	return &Service{store: opts.Store, wait: opts.Projections, grants: opts.Grants, log: log, clock: clock}, nil
}

func (s *Service) now() time.Time { return s.clock().UTC() }

// Origin is who asked for a write and through which request. It is recorded as the metadata of every
// event the write appends.
type Origin struct {
	// Actor is the signed-in user's id, "client-registration", or "oauth-client:<client id>" for the
	// token and revocation endpoints.
	Actor string
	// ClientID is the OAuth client the write concerns.
	ClientID string
	// CorrelationID is the inbound request's id; it ties together every event the request caused.
	CorrelationID string
	// At is when the request was made, by the server's clock.
	At time.Time
}

func (o Origin) metadata() eventstore.Metadata {
	return eventstore.Metadata{Actor: o.Actor, MCPClient: o.ClientID, CorrelationID: o.CorrelationID, Time: o.At}
}

// IsRefusal reports whether err from a write is an answer of the domain (a *domain.Error with a code
// other than internal) or of the store's concurrency check, rather than a failure to reach the
// database.
func IsRefusal(err error) bool {
	return domain.ErrorCode(err) != domain.CodeInternal || errors.Is(err, eventstore.ErrConflict)
}

var (
	clientAgg = eventstore.Aggregate[oauthdom.Client, oauthdom.RegisterClient, domain.Event]{
		Initial: oauthdom.InitialClient, Evolve: oauthdom.EvolveClient, Decide: oauthdom.DecideClient,
		Codec: eventstore.NewJSONCodec(oauthdom.Events()...),
	}
	grantAgg = eventstore.Aggregate[oauthdom.Grant, oauthdom.GrantCommand, domain.Event]{
		Initial: oauthdom.InitialGrant, Evolve: oauthdom.EvolveGrant, Decide: oauthdom.DecideGrant,
		Codec: eventstore.NewJSONCodec(oauthdom.Events()...),
	}
)
