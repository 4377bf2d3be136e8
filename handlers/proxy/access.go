package proxy

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/credentials"
	"github.com/workbench/workbench/plugins"
)

// DefaultCredentialTTL is how long the proxy reuses a user's resolved credential (see accessCache).
const DefaultCredentialTTL = 2 * time.Second

// accessCache keeps each user's resolved credential for an integration for a short while, so a burst
// of proxied requests reads the connection and opens the sealed credential once rather than once per
// request. It holds what credentials.Access returned: an OAuth injector still asks getToken on every
// request, which refreshes lazily as ever. The price is that a disconnect (or a new key) reaches the
// proxy up to the TTL late; a refusal (NOT_CONNECTED) is never kept.
type accessCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[accessKey]cachedAccess
}

type accessKey struct {
	user        uuid.UUID
	integration string
}

type cachedAccess struct {
	access credentials.Access
	until  time.Time
}

func (p *Proxy) accessFor(ctx context.Context, user uuid.UUID, in *plugins.Integration) (credentials.Access, error) {
	c := &p.access
	if c.ttl <= 0 {
		return p.creds.Access(ctx, user, in)
	}
	k := accessKey{user, in.Name}
	now := p.now()
	c.mu.Lock()
	e, ok := c.m[k]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.access, nil
	}
	a, err := p.creds.Access(ctx, user, in)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		delete(c.m, k)
		return a, err
	}
	if len(c.m) > 10000 {
		for k, e := range c.m {
			if !now.Before(e.until) {
				delete(c.m, k)
			}
		}
	}
	c.m[k] = cachedAccess{access: a, until: now.Add(c.ttl)}
	return a, nil
}
