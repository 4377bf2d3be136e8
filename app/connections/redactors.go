package connections

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"

	"github.com/workbench/workbench/internal/redact"
)

// redactors keeps the redactors built for the credential values calls used, keyed by a digest of
// those values: building one (every form of every value, then its automaton) costs far more than a
// scan of a small result, and a connection's values change only when its token is refreshed or it is
// connected again. An entry lives redactorTTL and the cache holds at most maxRedactors (it is
// emptied when full), so a credential that is gone stays in memory no longer than that; a nil
// *redactors builds every time.
type redactors struct {
	mu  sync.Mutex
	m   map[[32]byte]cachedRedactor
	now func() time.Time
}

type cachedRedactor struct {
	r  *redact.Redactor
	at time.Time
}

const (
	redactorTTL  = 10 * time.Minute
	maxRedactors = 1024
)

func newRedactors(now func() time.Time) *redactors {
	return &redactors{m: map[[32]byte]cachedRedactor{}, now: now}
}

// get returns the redactor of secrets and pairs (replaced by Redacted), from the cache while fresh.
func (c *redactors) get(secrets, pairs []string) *redact.Redactor {
	build := func() *redact.Redactor {
		s := make([]redact.Secret, len(secrets))
		for i, v := range secrets {
			s[i] = redact.Secret{Value: v, With: Redacted}
		}
		p := make([]redact.Secret, len(pairs))
		for i, v := range pairs {
			p[i] = redact.Secret{Value: v, With: Redacted}
		}
		return redact.New(s, p)
	}
	if c == nil {
		return build()
	}
	h := sha256.New()
	for _, list := range [][]string{secrets, pairs} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(list)))
		h.Write(n[:])
		for _, v := range list {
			binary.BigEndian.PutUint64(n[:], uint64(len(v)))
			h.Write(n[:])
			h.Write([]byte(v))
		}
	}
	var key [32]byte
	h.Sum(key[:0])
	now := c.now()
	c.mu.Lock()
	e, ok := c.m[key]
	c.mu.Unlock()
	if ok && now.Sub(e.at) < redactorTTL {
		return e.r
	}
	r := build()
	c.mu.Lock()
	if len(c.m) >= maxRedactors {
		clear(c.m)
	}
	c.m[key] = cachedRedactor{r: r, at: now}
	c.mu.Unlock()
	return r
}
