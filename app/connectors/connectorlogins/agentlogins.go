package connectorlogins

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

// RemoveAgentLogins removes every login of an agent that app/organizations deleted (the agent, or the
// member who owned it), as Remove removes one: its switches cleared, its credential shredded, the
// login gone. The caller has decided the deletion; a login already gone is nothing to do.
func (s *Service) RemoveAgentLogins(ctx context.Context, agent uuid.UUID, md eventstore.Metadata) error {
	ls, err := s.Reader.Logins(ctx, []login.Owner{{Scope: login.ScopeAgent, ID: agent}})
	if err != nil {
		return err
	}
	actor := md.Actor
	if actor == "" {
		actor = "system"
	}
	for _, l := range ls {
		if err := s.RemoveLogin(ctx, actor, l.State, "agent deleted"); err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
			return fmt.Errorf("remove login %s of deleted agent %s: %w", l.LoginID, agent, err)
		}
	}
	return nil
}

// sweepBatch is how many events SweepDeletedAgentLogins reads at a time.
const sweepBatch = 1000

// SweepDeletedAgentLogins removes the logins of agents deleted before RemoveAgentLogins existed
// (their logins stayed connected, and nobody could see or remove them). A login is removed only when
// the log holds its agent's AgentDeleted (agent ids are never reused); an agent the organisations
// read model does not know yet is left alone. The log is read only when some agent-scope login's
// agent is unknown. It returns how many logins it removed.
func (s *Service) SweepDeletedAgentLogins(ctx context.Context, md eventstore.Metadata) (int, error) {
	ls, err := s.Reader.LoginsAtScope(ctx, login.ScopeAgent)
	if err != nil {
		return 0, err
	}
	unknown := map[uuid.UUID]bool{}
	for _, l := range ls {
		if _, err := s.Opts.Scopes.Chain(ctx, l.Owner.ID); domain.ErrorCode(err) == domain.CodeNotFound {
			unknown[l.Owner.ID] = true
		} else if err != nil {
			return 0, err
		}
	}
	if len(unknown) == 0 {
		return 0, nil
	}
	deleted := map[uuid.UUID]bool{}
	for from := eventstore.Start; ; {
		evs, err := s.Opts.Store.ReadAll(ctx, from, sweepBatch)
		if err != nil {
			return 0, err
		}
		for _, ev := range evs {
			if ev.Type != organization.TypeAgentDeleted {
				continue
			}
			var d organization.AgentDeleted
			if err := json.Unmarshal(ev.Data, &d); err != nil {
				return 0, fmt.Errorf("read %s at %s: %w", ev.Type, ev.Position, err)
			}
			if unknown[d.AgentID] {
				deleted[d.AgentID] = true
			}
		}
		if len(evs) < sweepBatch {
			break
		}
		from = evs[len(evs)-1].Position
	}
	actor := md.Actor
	if actor == "" {
		actor = "system"
	}
	n := 0
	for _, l := range ls {
		if !deleted[l.Owner.ID] {
			continue
		}
		if err := s.RemoveLogin(ctx, actor, l.State, "agent deleted"); err != nil && domain.ErrorCode(err) != domain.CodeNotFound {
			return n, fmt.Errorf("remove login %s of deleted agent %s: %w", l.LoginID, l.Owner.ID, err)
		}
		n++
	}
	return n, nil
}

// RunSweep waits until ready answers nil (the read models have caught up with the log), then runs
// SweepDeletedAgentLogins once. It is what `workbench serve` starts in the background.
func (s *Service) RunSweep(ctx context.Context, ready func(context.Context) error, poll time.Duration, md eventstore.Metadata) (int, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for ready(ctx) != nil {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
		}
	}
	return s.SweepDeletedAgentLogins(ctx, md)
}
