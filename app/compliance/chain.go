// Package compliance holds the use cases compliance teams run on the log: proving it untampered
// (the audit chain of app/compliance/auditchain: verify, the latest seal, the sealing key, the sealer the
// server runs) and erasing a user (GDPR art. 17: EraseUser).
package compliance

import (
	"context"
	"crypto/ed25519"
	"database/sql"
	"errors"
	"time"

	"github.com/workbench/workbench/app/compliance/auditchain"
	"github.com/workbench/workbench/eventstore"
)

// Chain runs the audit chain's use cases over one database and event store.
type Chain struct {
	DB    *sql.DB
	Store eventstore.Store
	Vault auditchain.Vault
	// Gate is the SQLite write gate; nil on PostgreSQL.
	Gate auditchain.WriteGate
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (c *Chain) now() time.Time {
	if c.Now != nil {
		return c.Now().UTC()
	}
	return time.Now().UTC()
}

// Key opens the sealing key, creating it on first use.
func (c *Chain) Key(ctx context.Context) (ed25519.PrivateKey, error) {
	return auditchain.LoadOrCreateKey(ctx, c.DB, c.Vault, c.Gate, c.now())
}

// PublicKey is the key seals verify with, derived from the sealing key (created on first use).
func (c *Chain) PublicKey(ctx context.Context) (ed25519.PublicKey, error) {
	k, err := c.Key(ctx)
	if err != nil {
		return nil, err
	}
	return k.Public().(ed25519.PublicKey), nil
}

// Sealer returns the sealer the server runs (opts may be nil).
func (c *Chain) Sealer(ctx context.Context, opts *auditchain.SealerOptions) (*auditchain.Sealer, error) {
	k, err := c.Key(ctx)
	if err != nil {
		return nil, err
	}
	o := auditchain.SealerOptions{}
	if opts != nil {
		o = *opts
	}
	if o.Gate == nil {
		o.Gate = c.Gate
	}
	if o.Now == nil {
		o.Now = c.Now
	}
	return auditchain.NewSealer(c.DB, c.Store, k, &o)
}

// Verify checks the log in r against the chain and the seals. pub is the public key to trust; nil
// means the one derived from the sealing key in the vault (which needs ENCRYPTION_KEY). A log that has
// never been sealed has no key yet: Verify then reports every event as unchained.
func (c *Chain) Verify(ctx context.Context, r auditchain.Range, pub ed25519.PublicKey, opts *auditchain.VerifyOptions) (auditchain.Report, error) {
	if pub == nil {
		k, err := auditchain.LoadKey(ctx, c.DB, c.Vault)
		switch {
		case errors.Is(err, auditchain.ErrNoKey):
			k = nil
		case err != nil:
			return auditchain.Report{}, err
		}
		if k == nil {
			// Nothing was ever sealed: any key checks the (empty) set of seals.
			_, k, err = ed25519.GenerateKey(nil)
			if err != nil {
				return auditchain.Report{}, err
			}
		}
		pub = k.Public().(ed25519.PublicKey)
	}
	return auditchain.Verify(ctx, c.DB, c.Store, pub, r, opts)
}

// SealHead returns the latest seal. With now set it first chains what the log holds and seals the head
// at once (when anything is unsealed). ok is false when nothing was ever sealed.
func (c *Chain) SealHead(ctx context.Context, now bool) (seal auditchain.Seal, ok bool, err error) {
	if now {
		s, err := c.Sealer(ctx, nil)
		if err != nil {
			return auditchain.Seal{}, false, err
		}
		if _, err := s.Sync(ctx, true); err != nil {
			return auditchain.Seal{}, false, err
		}
	}
	return auditchain.LatestSeal(ctx, c.DB)
}
