package connectors

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/projections/connectors"
)

// DefaultCacheTTL is how long the tool-call path may reuse what it read of an agent's effective
// tools, a catalog row and a login's opened credentials. Every write this replica makes (a connect,
// a listing, a switch, a removal, an install) clears it at once; a write made on another replica is
// seen within the TTL.
const DefaultCacheTTL = time.Second

// hot caches the reads of the tool-call path: execute_tools and search_tools would otherwise read
// three tables, fold every login's state and open the credentials on every call.
type hot struct {
	mu      sync.Mutex
	ttl     time.Duration
	gen     uint64
	agents  map[uuid.UUID]hotEntry[[]connectors.Effective]
	servers map[string]hotEntry[connectors.Server]
	creds   map[uuid.UUID]hotCreds
}

type hotEntry[T any] struct {
	v  T
	at time.Time
}

type hotCreds struct {
	version int64
	creds   Creds
	at      time.Time
}

func newHot(ttl time.Duration) *hot {
	h := &hot{ttl: ttl}
	h.clearLocked()
	return h
}

func (h *hot) clearLocked() {
	h.gen++
	h.agents = map[uuid.UUID]hotEntry[[]connectors.Effective]{}
	h.servers = map[string]hotEntry[connectors.Server]{}
	h.creds = map[uuid.UUID]hotCreds{}
}

// invalidate forgets everything (after a write).
func (h *hot) invalidate() {
	h.mu.Lock()
	h.clearLocked()
	h.mu.Unlock()
}

func fresh(at time.Time, ttl time.Duration) bool { return ttl > 0 && time.Since(at) < ttl }

// cachedEffective is the agent's effective tools, cached.
func (s *Service) cachedEffective(ctx context.Context, user, agent uuid.UUID) ([]connectors.Effective, error) {
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
		return nil, err
	}
	h.mu.Lock()
	if h.gen == gen { // no write since the read began: the answer is current
		h.agents[agent] = hotEntry[[]connectors.Effective]{v: v, at: at}
	}
	h.mu.Unlock()
	return v, nil
}

// cachedServer is a catalog row, cached.
func (s *Service) cachedServer(ctx context.Context, id string) (connectors.Server, error) {
	h := s.hot
	h.mu.Lock()
	e, ok := h.servers[id]
	gen := h.gen
	h.mu.Unlock()
	if ok && fresh(e.at, h.ttl) {
		return e.v, nil
	}
	at := time.Now()
	v, err := s.reader.Server(ctx, id)
	if err != nil {
		return v, err
	}
	h.mu.Lock()
	if h.gen == gen {
		h.servers[id] = hotEntry[connectors.Server]{v: v, at: at}
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
	c, err := s.open(ctx, sealed)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	if h.gen == gen {
		h.creds[loginID] = hotCreds{version: version, creds: c, at: at}
	}
	h.mu.Unlock()
	return c, nil
}
