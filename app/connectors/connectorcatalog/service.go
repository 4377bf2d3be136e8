package connectorcatalog

import (
	"context"

	"github.com/workbench/workbench/app/connectors/connectorcore"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Service is the catalog of connectors and its registries. It is safe for concurrent use.
type Service struct {
	*connectorcore.Core
	// Dependents removes what names a server before its row goes (connectors.New wires it).
	Dependents Dependents
	// index is the last registry index fetched from RegistryURL (registryurl.go).
	index registryIndexCache
}

// Dependents removes a server's logins (their switches and credentials with them) and every switch
// another scope holds for it, each its own event: the streams of those belong to the logins and
// switches use cases.
type Dependents interface {
	RemoveServerDependents(ctx context.Context, actor string, srv connectorsrm.Server) error
}

// New is the catalog over core.
func New(core *connectorcore.Core) *Service { return &Service{Core: core} }

var (
	// connectorAggregate is a connector's stream: its installs, its OAuth clients and the catalog's
	// edits of its row, one decider for them all (connectordom.Decide).
	connectorAggregate = eventstore.Aggregate[connectordom.State, connectordom.Command, domain.Event]{
		Initial: connectordom.Initial, Evolve: connectordom.Evolve, Decide: connectordom.Decide,
		Codec: eventstore.NewJSONCodec(connectordom.Events()...),
	}
	// claimsAggregate is the catalog stream of slug and prefix claims (connectordom.CatalogStream),
	// taken before a row is added so racing adds cannot collide (connectordom.DecideClaims).
	claimsAggregate = eventstore.Aggregate[connectordom.Claims, connectordom.ClaimCommand, domain.Event]{
		Initial: connectordom.InitialClaims, Evolve: connectordom.EvolveClaims, Decide: connectordom.DecideClaims,
		Codec: eventstore.NewJSONCodec(connectordom.Events()...),
	}
)

// Client is the OAuth client stored on the connector for this issuer and redirect URI ("" when none).
func (s *Service) Client(ctx context.Context, srvID, issuer, redirect string) (string, error) {
	st, _, err := eventstore.LoadState(ctx, s.Opts.Store, connectordom.StreamName(srvID), connectorAggregate)
	if err != nil {
		return "", err
	}
	return st.Client(issuer, redirect), nil
}

// RegisterClient stores a client registered at an issuer on the connector (connector.client_registered)
// and answers the connector's client: another request may have stored its client first, and the
// stored one is the connector's.
func (s *Service) RegisterClient(ctx context.Context, actor string, ev connectordom.ClientRegistered) (string, error) {
	res, err := eventstore.Execute(ctx, s.Opts.Store, connectordom.StreamName(ev.ID), connectorAggregate,
		connectordom.Command(connectordom.RegisterClient{Event: ev}), s.MD(actor))
	if err != nil {
		return "", err
	}
	return res.State.Client(ev.Issuer, ev.RedirectURI), nil
}
