// Package budgets enforces the rate limits and budgets organisations, guilds and agents set on their
// agents' tool calls (domain/budget): before a call reaches its provider it is charged to every
// budget of its agent's chain that covers its tool (the scope's budget on every tool, and its budget
// on that tool), and refused with RATE_LIMITED when one is spent.
//
// Each budget counts its calls in a stream per UTC day, one event a call, appended under the
// version the count was read at: calls that race on several replicas cannot overshoot a limit, and
// the counts are the log's (they rebuild with it). A replica keeps what it read of each stream and
// reads only the events appended since, so a call costs one short read and one append per budget
// that covers it; a call no budget covers costs one cached lookup. When a later budget refuses a call
// that earlier ones counted, those are refunded (budget.refunded), so a refused call costs no budget.
package budgets

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/budget"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/budgetsrm"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// Chains is the caller's agent's chain (*connectors.Service).
type Chains interface {
	CallerChain(ctx context.Context, caller executions.Caller) (connectorsrm.Chain, error)
}

// Scopes says who manages a scope (*connectors.OrganizationScopes).
type Scopes interface {
	MayManage(ctx context.Context, user uuid.UUID, o login.Owner) error
}

// Options configure the Service.
type Options struct {
	Store  eventstore.Store
	DB     *sql.DB
	Chains Chains
	Scopes Scopes
	// Projections makes the read model hold a budget before Set answers.
	Projections interface {
		WaitFor(ctx context.Context, pos eventstore.Position) error
	}
	Logger *slog.Logger
	Now    func() time.Time
	// CacheTTL is how long a replica reuses the budgets it read for a chain (default one second; a
	// budget set on this replica applies at once).
	CacheTTL time.Duration
}

// Service charges calls to budgets.
type Service struct {
	opts   Options
	log    *slog.Logger
	reader budgetsrm.Reader
	codec  *eventstore.JSONCodec[domain.Event]

	mu      sync.Mutex
	gen     uint64
	callers map[callerKey]cachedBudgets
	buckets map[string]cachedBucket
	// told is when this replica last recorded a budget's exhaustion, by calls stream.
	told map[string]time.Time
}

// callerKey keys the budgets cache: the agent a caller names, or the user whose default agent it
// acts as.
type callerKey struct{ user, agent uuid.UUID }

type cachedBudgets struct {
	v  []budgetsrm.Budget
	at time.Time
}

type cachedBucket struct {
	version int64
	b       budget.Bucket
}

var _ executions.Budgets = (*Service)(nil)

// New returns the service.
func New(o Options) (*Service, error) {
	if o.Store == nil || o.DB == nil || o.Chains == nil {
		return nil, errors.New("budgets: a store, a database and the chains are required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CacheTTL <= 0 {
		o.CacheTTL = time.Second
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{opts: o, log: log, reader: budgetsrm.Reader{DB: o.DB}, codec: eventstore.NewJSONCodec(budget.Events()...),
		callers: map[callerKey]cachedBudgets{}, buckets: map[string]cachedBucket{}, told: map[string]time.Time{}}, nil
}

// ownersOf lists a chain's scopes that may hold budgets, from the least to the most specific.
func ownersOf(c connectorsrm.Chain) []budget.Owner {
	var out []budget.Owner
	for _, o := range c.Owners() {
		if o.Scope != login.ScopePlatform {
			out = append(out, budget.Owner{Scope: string(o.Scope), ID: o.ID})
		}
	}
	return out
}

// budgetsOf are the budgets of the caller's agent's chain, cached for CacheTTL per caller: the
// tool-call path reads neither the chain nor the table on every call.
func (s *Service) budgetsOf(ctx context.Context, caller executions.Caller) ([]budgetsrm.Budget, error) {
	key := callerKey{user: caller.UserID, agent: caller.AgentID}
	s.mu.Lock()
	e, ok := s.callers[key]
	gen := s.gen
	s.mu.Unlock()
	if ok && time.Since(e.at) < s.opts.CacheTTL {
		return e.v, nil
	}
	at := time.Now()
	chain, err := s.opts.Chains.CallerChain(ctx, caller)
	if err != nil {
		return nil, err
	}
	v, err := s.reader.Of(ctx, ownersOf(chain))
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.gen == gen {
		if len(s.callers) > 10000 {
			clear(s.callers)
		}
		s.callers[key] = cachedBudgets{v: v, at: at}
	}
	s.mu.Unlock()
	return v, nil
}

// Charge implements executions.Budgets: the call of tool by caller's agent is counted against every
// budget of the chain that covers it, or refused (Allowed false) when one is spent.
func (s *Service) Charge(ctx context.Context, caller executions.Caller, tool string) (executions.BudgetResult, error) {
	all, err := s.budgetsOf(ctx, caller)
	if err != nil {
		return executions.BudgetResult{}, err
	}
	var charged []budgetsrm.Budget
	for _, b := range all {
		if b.Tool != budget.AllTools && b.Tool != tool {
			continue
		}
		wait, why, err := s.chargeOne(ctx, b)
		if err == nil && why == "" {
			charged = append(charged, b)
			continue
		}
		s.refund(ctx, charged)
		if err != nil {
			return executions.BudgetResult{}, err
		}
		scope := b.Owner.Scope
		what := "every tool"
		if b.Tool != budget.AllTools {
			what = b.Tool
		}
		s.exhausted(ctx, caller, b, tool, why)
		secs := int(math.Ceil(wait.Seconds()))
		return executions.BudgetResult{RetryAfter: time.Duration(secs) * time.Second,
			Message: fmt.Sprintf("%s did not run: the budget its %s set for %s (%s) is spent; retry in %d s.", tool, scope, what, why, secs)}, nil
	}
	return executions.BudgetResult{Allowed: true}, nil
}

// chargeOne counts one call against b, or says how long until it fits and which limit it is over.
func (s *Service) chargeOne(ctx context.Context, b budgetsrm.Budget) (time.Duration, string, error) {
	for attempt := 0; attempt < 50; attempt++ {
		now := s.opts.Now()
		stream := budget.CallsStreamName(b.Owner, b.Tool, budget.Day(now))
		c, err := s.bucket(ctx, stream)
		if err != nil {
			return 0, "", err
		}
		ev, wait, why := budget.Charge(c.b, b.Owner, b.Tool, b.PerMinute, b.PerDay, now)
		if ev == nil {
			return wait, why, nil
		}
		if err := s.append(ctx, stream, eventstore.ExpectedVersion(c.version), c, ev); err != nil {
			if errors.Is(err, eventstore.ErrConflict) {
				continue // another call (here or on another replica) counted first: read it and decide again
			}
			return 0, "", err
		}
		return 0, "", nil
	}
	return 0, "", &domain.Error{Code: domain.CodeUnavailable, Message: "the budget is contended; try again in a moment"}
}

// exhausted records, at most once a minute per budget on this replica, that b refused a call (the
// event organisations' webhooks hear). A failure is logged: the refusal stands.
func (s *Service) exhausted(ctx context.Context, caller executions.Caller, b budgetsrm.Budget, tool, why string) {
	now := s.opts.Now()
	stream := budget.CallsStreamName(b.Owner, b.Tool, budget.Day(now))
	s.mu.Lock()
	last, seen := s.told[stream]
	if seen && now.Sub(last) < time.Minute {
		s.mu.Unlock()
		return
	}
	if len(s.told) > 10000 {
		clear(s.told)
	}
	s.told[stream] = now
	s.mu.Unlock()
	ev := budget.Exhausted{Owner: b.Owner, Tool: b.Tool, Called: tool, UserID: caller.UserID, AgentID: caller.AgentID, Limit: why, At: now.UTC()}
	if err := s.append(ctx, stream, eventstore.Any, cachedBucket{}, ev); err != nil {
		s.log.WarnContext(ctx, "record a budget's exhaustion", "stream", stream, "err", err)
	}
}

// refund gives back what budgets counted for a call another budget refused.
func (s *Service) refund(ctx context.Context, charged []budgetsrm.Budget) {
	for _, b := range charged {
		now := s.opts.Now()
		stream := budget.CallsStreamName(b.Owner, b.Tool, budget.Day(now))
		ev := budget.Refunded{Owner: b.Owner, Tool: b.Tool, PerMinute: b.PerMinute, At: now.UTC()}
		if err := s.append(ctx, stream, eventstore.Any, cachedBucket{}, ev); err != nil {
			s.log.WarnContext(ctx, "a budget's refund failed; it counts a call that did not run", "stream", stream, "err", err)
		}
	}
}

// bucket is one calls stream folded, read from where this replica last read it.
func (s *Service) bucket(ctx context.Context, stream string) (cachedBucket, error) {
	s.mu.Lock()
	c := s.buckets[stream]
	s.mu.Unlock()
	envs, err := s.opts.Store.Load(ctx, stream, c.version+1)
	if err != nil {
		return c, err
	}
	for _, env := range envs {
		ev, err := s.codec.Decode(env.Type, env.SchemaVersion, env.Data)
		if err != nil {
			return c, err
		}
		c.b, c.version = budget.EvolveBucket(c.b, ev), env.Version
	}
	s.remember(stream, c)
	return c, nil
}

func (s *Service) remember(stream string, c cachedBucket) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cur, ok := s.buckets[stream]; !ok || cur.version < c.version {
		if len(s.buckets) > 10000 {
			clear(s.buckets) // yesterday's streams and idle budgets: read again when used
		}
		s.buckets[stream] = c
	}
}

// append writes ev to stream; with an exact expected version, the bucket c it was decided on is
// remembered with it.
func (s *Service) append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, c cachedBucket, ev domain.Event) error {
	typ, sv, data, err := s.codec.Encode(ev)
	if err != nil {
		return err
	}
	if _, err := s.opts.Store.Append(ctx, stream, expected, eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: data,
		Metadata: eventstore.Metadata{Actor: "system", Time: s.opts.Now().UTC()}}); err != nil {
		return err
	}
	if expected != eventstore.Any {
		c.b, c.version = budget.EvolveBucket(c.b, ev), int64(expected)+1
		s.remember(stream, c)
	}
	return nil
}

// Covered names the tools among tools that a budget of the caller's agent's chain covers (every one
// when a budget covers every tool): what a curl session, which budgets cannot count, must not reach.
func (s *Service) Covered(ctx context.Context, caller executions.Caller, tools []string) ([]string, error) {
	all, err := s.budgetsOf(ctx, caller)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range tools {
		for _, b := range all {
			if b.Tool == budget.AllTools || b.Tool == t {
				out = append(out, t)
				break
			}
		}
	}
	return out, nil
}
