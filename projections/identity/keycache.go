package identity

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identity"
	"github.com/workbench/workbench/eventstore"
)

// KeyOwnerSource answers who owns a live API key hash (KeyLookup does, from the read model).
type KeyOwnerSource interface {
	UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error)
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
	user  User
	key   uuid.UUID
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

// UserByKeyHash implements the lookup of handlers/authn.KeyOwners through the cache.
func (c *KeyCache) UserByKeyHash(ctx context.Context, hash string) (User, uuid.UUID, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[hash]
	gen := c.gen
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.user, e.key, nil
	}
	u, key, err := c.src.UserByKeyHash(ctx, hash)
	if err != nil || c.max < 0 {
		return u, key, err
	}
	c.mu.Lock()
	if c.gen == gen {
		if len(c.entries) >= c.max {
			clear(c.entries)
		}
		c.entries[hash] = keyOwner{user: u, key: key, until: now.Add(c.maxAge)}
	}
	c.mu.Unlock()
	return u, key, nil
}

// Forget drops every entry when envs hold an event that may change who owns a live key or what is
// known of them (any identity event other than an email claim, or a subject shredded), and makes
// the answers of lookups already under way unkeepable. Give it to projections.Runner.AfterApply for
// the identity projection.
func (c *KeyCache) Forget(envs []eventstore.Envelope) {
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
	case identity.TypeUserCreated, identity.TypeAPIKeyMinted, identity.TypeAPIKeyRotated, identity.TypeAPIKeyRevoked:
		return true
	}
	return false
}
