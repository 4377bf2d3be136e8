package proxy

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/plugins"
)

// DefaultCredentialTTL is how long the proxy reuses a user's resolved credential (see accessCache).
const DefaultCredentialTTL = 2 * time.Second

// accessCache keeps each user's resolved credential for an integration for a short while, so a burst
// of proxied requests reads the connection and opens the sealed credential once rather than once per
// request. It holds what connections.Access returned: an OAuth injector still asks getToken on every
// request, which refreshes lazily as ever. The price is that a disconnect (or a new key) reaches the
// proxy up to the TTL late; a refusal (NOT_CONNECTED) is never kept. When an entry expires, the
// requests that need it meanwhile wait for one resolution instead of each making its own.
type accessCache struct {
	ttl time.Duration
	mu  sync.Mutex
	m   map[accessKey]cachedAccess
	// resolving holds the resolution under way for a key (see accessFor).
	resolving map[accessKey]*resolution
}

// resolution is one resolve that other requests for the same key wait for.
type resolution struct {
	done chan struct{}
	a    cachedAccess
	err  error
}

type accessKey struct {
	user        uuid.UUID
	integration string
	account     string
}

type cachedAccess struct {
	access connections.Access
	// rt is the plugin runtime's guarded transport for this user and integration: it refuses any
	// origin but the integration's own and injects access's credential into its copy of a request.
	rt http.RoundTripper
	// base is the integration's proxy base URL resolved with access's credential values
	// ({credential.<key>}), or baseErr why it could not be: it depends on nothing but the two, so it
	// is resolved once per credential rather than once per request. Read only (joinTarget copies).
	base    *url.URL
	baseErr error
	until   time.Time
}

func (p *Proxy) accessFor(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (cachedAccess, error) {
	c := &p.access
	if c.ttl <= 0 {
		return p.resolve(ctx, user, in, account)
	}
	k := accessKey{user, in.Name, account}
	now := p.now()
	c.mu.Lock()
	e, ok := c.m[k]
	if ok && now.Before(e.until) {
		c.mu.Unlock()
		return e, nil
	}
	if r, ok := c.resolving[k]; ok {
		c.mu.Unlock()
		select {
		case <-r.done:
			return r.a, r.err
		case <-ctx.Done():
			return cachedAccess{}, ctx.Err()
		}
	}
	r := &resolution{done: make(chan struct{})}
	if c.resolving == nil {
		c.resolving = map[accessKey]*resolution{}
	}
	c.resolving[k] = r
	c.mu.Unlock()
	// Others wait for this answer: the caller leaving must not cut it short for them.
	a, err := p.resolve(context.WithoutCancel(ctx), user, in, account)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.resolving, k)
	r.a, r.err = a, err
	close(r.done)
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
	a.until = now.Add(c.ttl)
	c.m[k] = a
	return a, nil
}

func (p *Proxy) resolve(ctx context.Context, user uuid.UUID, in *plugins.Integration, account string) (cachedAccess, error) {
	a, err := p.creds.Access(ctx, user, in, account)
	if err != nil {
		return cachedAccess{}, err
	}
	rt := plugins.NewContext(in, plugins.ContextOptions{
		UserID: user.String(), Injector: a.Injector, GetToken: a.GetToken, Transport: p.transport,
	}).HTTP().Transport
	// The base may hold values learned after consent ({credential.cloud_id}); the origin stays the
	// manifest's.
	base, baseErr := in.ResolveProxyBaseURL(a.Credential)
	return cachedAccess{access: a, rt: rt, base: base, baseErr: baseErr}, nil
}
