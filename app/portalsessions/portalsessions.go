// Package portalsessions ends portal sessions: one session at sign-out, or every session of a user
// issued until now ("sign out everywhere"). It owns the portal-session aggregate's one
// eventstore.Aggregate value and the commands that write its stream; handlers/websession issues and
// reads the cookies and asks this package to end them. An end returns once the read model that every
// replica consults (projections/portalsessionsrm) holds it, so no replica accepts the session after the
// sign-out has been answered.
package portalsessions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/portalsession"
	"github.com/workbench/workbench/eventstore"
)

// Waiter waits until the read models hold a position of the log (the projections runner).
type Waiter interface {
	WaitFor(ctx context.Context, pos eventstore.Position) error
}

// Sessions is the portal-session stream of every user, as one aggregate.
var Sessions = eventstore.Aggregate[portalsession.State, portalsession.Command, domain.Event]{
	Initial: portalsession.Initial, Evolve: portalsession.Evolve, Decide: portalsession.Decide,
	Codec: eventstore.NewJSONCodec(portalsession.Events()...),
}

// Service records the end of portal sessions.
type Service struct {
	store       eventstore.Store
	projections Waiter
	now         func() time.Time
}

// New returns a Service writing to store and waiting for projections; now is the clock of the
// recorded ends (nil: time.Now).
func New(store eventstore.Store, projections Waiter, now func() time.Time) (*Service, error) {
	if store == nil || projections == nil {
		return nil, errors.New("portalsessions: a store and the projections runner are required")
	}
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, projections: projections, now: now}, nil
}

// End ends one session of user (sign-out).
func (s *Service) End(ctx context.Context, user, session uuid.UUID, issuedAt, expiresAt time.Time, md eventstore.Metadata) error {
	return s.execute(ctx, user, portalsession.End{UserID: user, SessionID: session, IssuedAt: issuedAt, ExpiresAt: expiresAt, At: s.now()}, md)
}

// EndAll ends every session of user issued until now.
func (s *Service) EndAll(ctx context.Context, user uuid.UUID, md eventstore.Metadata) error {
	return s.execute(ctx, user, portalsession.EndAll{UserID: user, At: s.now()}, md)
}

func (s *Service) execute(ctx context.Context, user uuid.UUID, cmd portalsession.Command, md eventstore.Metadata) error {
	res, err := eventstore.Execute(ctx, s.store, portalsession.StreamName(user), Sessions, cmd, md)
	if err != nil {
		return fmt.Errorf("end portal session: %w", err)
	}
	if res.Position.IsZero() {
		return nil // already ended: nothing was written
	}
	if err := s.projections.WaitFor(ctx, res.Position); err != nil {
		return fmt.Errorf("end portal session: wait for the read model: %w", err)
	}
	return nil
}
