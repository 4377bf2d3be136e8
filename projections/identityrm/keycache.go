package identityrm

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
)

// KeyOwnerSource answers who owns a live API key hash (KeyLookup does, from the read model).
type KeyOwnerSource interface {
	OwnerByKeyHash(ctx context.Context, hash string) (KeyOwner, error)
}

// KeyCache remembers the owners of the API keys its source found live, so that an authenticated
// request does not query the read model every time. It forgets everything whenever the identity read
// model applies an event that may change an answer (Forget, wired as the projection's
// projections.Runner.AfterApply): a key rotated or revoked is refused from the moment the read model
// says so, as without the cache. An answer read while such a batch was being applied is not kept
// (the generation it was read under has passed). Entries also expire after MaxAge, a bound should
// the read model's notifications ever stop; unknown keys and errors are never kept.
type KeyCache struct {
	src    KeyOwnerSource
	maxAge time.Duration
	max    int
	now    func() time.Time

	mu      sync.Mutex
	gen     uint64
	entries map[string]keyOwner
}

type keyOwner struct {
	owner KeyOwner
	until time.Time
}

// KeyCacheOptions tune a KeyCache; zero fields mean defaults.
type KeyCacheOptions struct {
	MaxAge  time.Duration    // default 1 minute
	Max     int              // most entries kept (default 10000; the cache starts over when full)
	Now     func() time.Time // default time.Now
	Disable bool             // pass every lookup through (for comparison)
}

// NewKeyCache returns a cache in front of src.
func NewKeyCache(src KeyOwnerSource, opts *KeyCacheOptions) *KeyCache {
	c := &KeyCache{src: src, maxAge: time.Minute, max: 10000, now: time.Now, entries: map[string]keyOwner{}}
	if opts != nil {
		if opts.MaxAge > 0 {
			c.maxAge = opts.MaxAge
		}
		if opts.Max > 0 {
			c.max = opts.Max
		}
		if opts.Now != nil {
			c.now = opts.Now
		}
		if opts.Disable {
			c.max = -1
		}
	}
	return c
}

// UserByKeyHash is OwnerByKeyHash without the agent.
func (c *KeyCache) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	o, err := c.OwnerByKeyHash(ctx, hash)
	return o.User, o.KeyID, err
}

// OwnerByKeyHash implements the lookup of handlers/authn.KeyOwners through the cache.
func (c *KeyCache) OwnerByKeyHash(ctx context.Context, hash string) (KeyOwner, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[hash]
	gen := c.gen
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.owner, nil
	}
	o, err := c.src.OwnerByKeyHash(ctx, hash)
	if err != nil || c.max < 0 {
		return o, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
		c.entries[hash] = keyOwner{owner: o, until: now.Add(c.maxAge)}
	}
	c.mu.Unlock()
	return o, nil
}

// Forget drops every entry when envs hold an event that may change who owns a live key or what is
// known of them (any identity event other than an email claim, or a subject shredded), or when envs
// is nil (the read model moved by another replica's runner, Runner.AfterApply), and makes
// the answers of lookups already under way unkeepable. Give it to projections.Runner.AfterApply for
// the identity projection.
func (c *KeyCache) Forget(envs []eventstore.Envelope) {
	if envs == nil { // another replica's runner moved the read model past events not seen here
		c.mu.Lock()
		c.gen++
		clear(c.entries)
		c.mu.Unlock()
		return
	}
	for _, env := range envs {
		if changesKeyOwners(env.Type) {
			c.mu.Lock()
			c.gen++
			clear(c.entries)
			c.mu.Unlock()
			return
		}
	}
}

// changesKeyOwners reports whether an event of this type may change a KeyCache answer: the events
// the identity read model keeps users and keys from.
func changesKeyOwners(eventType string) bool {
	switch eventType {
	case identitydom.TypeUserCreated, identitydom.TypeAPIKeyMinted, identitydom.TypeAPIKeyRotated, identitydom.TypeAPIKeyRevoked,
		identitydom.TypeUserErased: // an erased user's keys are dead and the lookups skip them
		return true
	}
	return false
}
