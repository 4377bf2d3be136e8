package connections

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtime"
)

// Run subscribes to the bus (so waits complete when another replica records the outcome) and sweeps
// connect attempts every SweepInterval until ctx ends: it records ExpirePending for pending attempts
// past their expiry, and prunes terminal attempts older than Retention from the read model. It
// returns nil when ctx ends.
func (s *Service) Run(ctx context.Context) error {
	if s.bus != nil {
		// Only connection streams wake waiters: the bus acknowledges every other event undecoded.
		connectionStream := func(stream, _ string) bool { return strings.HasPrefix(stream, "connection-") }
		sub, err := s.bus.SubscribeWhere(ctx, s.topic, connectionStream, func(_ context.Context, env eventstore.Envelope) error {
			s.hub.notify(env.Stream)
			return nil
		})
		if err != nil {
			return fmt.Errorf("connections: subscribe to %s: %w", s.topic, err)
		}
		defer sub.Close()
		s.readyOne.Do(func() { close(s.ready) })
	}
	t := time.NewTicker(s.sweepEvery)
	defer t.Stop()
	for {
		if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
			s.log.WarnContext(ctx, "connections: sweep", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sweep runs one sweep (Run calls it every SweepInterval).
func (s *Service) Sweep(ctx context.Context) error {
	now := s.clock()
	rows, err := s.db.QueryContext(ctx, `SELECT attempt_id, user_id, integration, account FROM connection_attempts WHERE outcome = $1 AND expires_at <= $2`,
		string(connection.AttemptPending), dbtime.Format(now))
	if err != nil {
		return fmt.Errorf("list expired attempts: %w", err)
	}
	type due struct {
		attempt, user uuid.UUID
		integration   string
		account       string
	}
	var list []due
	for rows.Next() {
		var a, u, in, acc string
		if err := rows.Scan(&a, &u, &in, &acc); err != nil {
			rows.Close()
			return err
		}
		aid, err1 := uuid.Parse(a)
		uid, err2 := uuid.Parse(u)
		if err1 == nil && err2 == nil {
			list = append(list, due{aid, uid, in, acc})
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	var errs []error
	for _, d := range list {
		if err := s.expire(ctx, d.user, d.integration, d.account, d.attempt, now); err != nil {
			errs = append(errs, err)
		}
	}
	// Terminal attempts are answerable for Retention, then pruned (spec, Connection). The read model
	// is disposable: a rebuild brings old rows back until the next sweep, and WaitForConnection
	// applies the same cut-off by itself.
	if _, err := s.db.ExecContext(ctx, `DELETE FROM connection_attempts WHERE outcome <> $1 AND ended_at IS NOT NULL AND ended_at < $2`,
		string(connection.AttemptPending), dbtime.Format(now.Add(-s.retention))); err != nil {
		errs = append(errs, fmt.Errorf("prune attempts: %w", err))
	}
	return errors.Join(errs...)
}

// expire records ExpirePending; an attempt that ended some other way first is fine.
func (s *Service) expire(ctx context.Context, user uuid.UUID, integration, account string, attempt uuid.UUID, now time.Time) error {
	_, err := s.execute(ctx, user, integration, account, connection.ExpirePending{AttemptID: attempt, At: now})
	switch domain.ErrorCode(err) {
	case domain.CodeConflict, domain.CodeNotFound:
		return nil
	}
	if err != nil {
		return fmt.Errorf("expire attempt %s: %w", attempt, err)
	}
	return nil
}
