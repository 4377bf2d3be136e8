package budgets

import (
	"context"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/budget"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
)

var policyAggregate = eventstore.Aggregate[struct{}, budget.Set, domain.Event]{
	Initial: func() struct{} { return struct{}{} },
	Evolve:  func(s struct{}, _ domain.Event) struct{} { return s },
	Decide:  func(_ struct{}, c budget.Set) ([]domain.Event, error) { return budget.SetCommand(c) },
	Codec:   eventstore.NewJSONCodec(budget.Events()...),
}

func (s *Service) mayManage(ctx context.Context, user uuid.UUID, o budget.Owner) error {
	if !o.Valid() {
		return domain.Errorf(domain.CodeInvalid, "owner_scope must be organization, guild or agent, with its owner_id")
	}
	if s.opts.Scopes == nil {
		return domain.Errorf(domain.CodeForbidden, "budgets cannot be managed here")
	}
	return s.opts.Scopes.MayManage(ctx, user, login.Owner{Scope: login.Scope(o.Scope), ID: o.ID})
}

// Set sets a scope's budget on one tool (budget.AllTools: every tool); both limits 0 removes it. The
// user must manage the scope. It binds at once on this replica, within CacheTTL on the others.
func (s *Service) Set(ctx context.Context, user uuid.UUID, o budget.Owner, tool string, perMinute, perDay int) error {
	if err := s.mayManage(ctx, user, o); err != nil {
		return err
	}
	if tool == "" {
		tool = budget.AllTools
	}
	ev := budget.Set{Owner: o, Tool: tool, PerMinute: perMinute, PerDay: perDay, By: user.String(), At: s.opts.Now()}
	res, err := eventstore.Execute(ctx, s.opts.Store, budget.PolicyStreamName(o), policyAggregate, ev, eventstore.Metadata{Actor: user.String(), Time: s.opts.Now().UTC()})
	if err != nil {
		return err
	}
	if s.opts.Projections != nil && len(res.Events) > 0 {
		if err := s.opts.Projections.WaitFor(ctx, res.Position); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.gen++
	clear(s.callers)
	s.mu.Unlock()
	return nil
}

// Usage is one budget of a scope with what today's calls used of it.
type Usage struct {
	Tool      string `json:"tool"`
	PerMinute int    `json:"per_minute"`
	PerDay    int    `json:"per_day"`
	// Today is the calls counted today (UTC); Available the calls the per-minute bucket holds now.
	Today int `json:"today"`
	// Available is absent for a budget without a per-minute limit (0 is an empty bucket).
	Available *float64 `json:"available_now,omitempty"`
	Day       string   `json:"day"`
}

// Usages lists a scope's budgets with today's use. The user must manage the scope.
func (s *Service) Usages(ctx context.Context, user uuid.UUID, o budget.Owner) ([]Usage, error) {
	if err := s.mayManage(ctx, user, o); err != nil {
		return nil, err
	}
	bs, err := s.reader.Of(ctx, []budget.Owner{o})
	if err != nil {
		return nil, err
	}
	now := s.opts.Now()
	out := make([]Usage, 0, len(bs))
	for _, b := range bs {
		c, err := s.bucket(ctx, budget.CallsStreamName(b.Owner, b.Tool, budget.Day(now)))
		if err != nil {
			return nil, err
		}
		u := Usage{Tool: b.Tool, PerMinute: b.PerMinute, PerDay: b.PerDay, Today: c.b.Count, Day: budget.Day(now)}
		if b.PerMinute > 0 {
			a := float64(int(c.b.Available(now, b.PerMinute)*10)) / 10
			u.Available = &a
		}
		out = append(out, u)
	}
	return out, nil
}
