package connectortools

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// DefaultCacheTTL is how long the tool-call path may reuse what it read of an agent's effective
// tools, a catalog row and a login's opened credentials. Every write this replica makes (a connect,
// a listing, a switch, a removal, an install) clears it at once; a write made on another replica is
// seen within the TTL.

// hot caches the reads of the tool-call path: execute_tools and search_tools would otherwise read
// three tables, fold every login's state and open the credentials on every call.
type hot struct {
	mu      sync.Mutex
	ttl     time.Duration
	gen     uint64
	agents  map[uuid.UUID]hotEntry[hotAgent]
	servers map[string]hotEntry[connectorsrm.Server]
	creds   map[uuid.UUID]hotCreds
	// plugins are the plugin tools' switches of a caller's chain, by tool, per caller (pluginswitches.go).
	plugins map[pluginCaller]hotEntry[pluginChain]
}

// pluginCaller keys the plugin switches cache: the agent a caller names, or the user whose default
// agent it acts as.
type pluginCaller struct{ user, agent uuid.UUID }

type hotEntry[T any] struct {
	v  T
	at time.Time
}

// hotAgent is an agent's effective tools and, by name, the index of each On one (the first of a name).
type hotAgent struct {
	all []connectorsrm.Effective
	on  map[string]int
}

func newHotAgent(all []connectorsrm.Effective) hotAgent {
	a := hotAgent{all: all, on: make(map[string]int, len(all))}
	for i, e := range all {
		if _, dup := a.on[e.Name]; e.On && runnable(e) && !dup {
			a.on[e.Name] = i
		}
	}
	return a
}

type hotCreds struct {
	version int64
	creds   Creds
	red     redactor // of creds
	at      time.Time
}

func newHot(ttl time.Duration) *hot {
	h := &hot{ttl: ttl}
	h.clearLocked()
	return h
}

func (h *hot) clearLocked() {
	h.gen++
	h.agents = map[uuid.UUID]hotEntry[hotAgent]{}
	h.servers = map[string]hotEntry[connectorsrm.Server]{}
	h.creds = map[uuid.UUID]hotCreds{}
	h.plugins = map[pluginCaller]hotEntry[pluginChain]{}
}

// invalidate forgets everything (after a write).
func (h *hot) invalidate() {
	h.mu.Lock()
	h.clearLocked()
	h.mu.Unlock()
}

func fresh(at time.Time, ttl time.Duration) bool { return ttl > 0 && time.Since(at) < ttl }

// cachedEffective is the agent's effective tools, cached.
func (s *Service) cachedEffective(ctx context.Context, user, agent uuid.UUID) ([]connectorsrm.Effective, error) {
	a, err := s.cachedAgent(ctx, user, agent)
	return a.all, err
}

func (s *Service) cachedAgent(ctx context.Context, user, agent uuid.UUID) (hotAgent, error) {
	h := s.hot
	h.mu.Lock()
	e, ok := h.agents[agent]
	gen := h.gen
	h.mu.Unlock()
	if ok && fresh(e.at, h.ttl) {
		return e.v, nil
	}
	at := time.Now()
	v, err := s.effectiveOf(ctx, user, agent)
	if err != nil {
		return hotAgent{}, err
	}
	a := newHotAgent(v)
	h.mu.Lock()
	if h.gen == gen { // no write since the read began: the answer is current
		h.agents[agent] = hotEntry[hotAgent]{v: a, at: at}
	}
	h.mu.Unlock()
	return a, nil
}

// offeredTool is the caller's On tool named name (ToolSchema without copying the On tools out).
func (s *Service) offeredTool(ctx context.Context, caller executions.Caller, name string) (connectorsrm.Effective, bool, error) {
	agent, err := s.AgentOf(ctx, caller)
	if err != nil {
		return connectorsrm.Effective{}, false, err
	}
	a, err := s.cachedAgent(ctx, caller.UserID, agent)
	if err != nil {
		return connectorsrm.Effective{}, false, err
	}
	i, ok := a.on[name]
	if !ok {
		return connectorsrm.Effective{}, false, nil
	}
	return a.all[i], true, nil
}

// cachedServer is a catalog row, cached.
func (s *Service) cachedServer(ctx context.Context, id string) (connectorsrm.Server, error) {
	h := s.hot
	h.mu.Lock()
	e, ok := h.servers[id]
	gen := h.gen
	h.mu.Unlock()
	if ok && fresh(e.at, h.ttl) {
		return e.v, nil
	}
	at := time.Now()
	v, err := s.Reader.Server(ctx, id)
	if err != nil {
		return v, err
	}
	h.mu.Lock()
	if h.gen == gen {
		h.servers[id] = hotEntry[connectorsrm.Server]{v: v, at: at}
	}
	h.mu.Unlock()
	return v, nil
}

// cachedCreds opens a login's credentials, reusing them while the login's version is the same.
func (s *Service) cachedCreds(ctx context.Context, loginID uuid.UUID, version int64, sealed domain.Sealed) (Creds, error) {
	h := s.hot
	h.mu.Lock()
	e, ok := h.creds[loginID]
	gen := h.gen
	h.mu.Unlock()
	if ok && e.version == version && fresh(e.at, h.ttl) {
		return e.creds, nil
	}
	at := time.Now()
	c, err := s.Open(ctx, sealed)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.gen == gen {
		h.creds[loginID] = hotCreds{version: version, creds: c, red: newRedactor(c), at: at}
	}
	h.mu.Unlock()
	return c, nil
}

// redactorFor is the redactor of a login's creds: the one made when they were opened while they are
// still the cached ones, else a new one (an OAuth refresh gave other tokens, or the cache is off).
func (s *Service) redactorFor(loginID uuid.UUID, creds Creds) redactor {
	h := s.hot
	h.mu.Lock()
	e, ok := h.creds[loginID]
	h.mu.Unlock()
	if ok && e.creds.Equal(creds) {
		return e.red
	}
	return newRedactor(creds)
}
