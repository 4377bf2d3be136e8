package auditchain

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Defaults of SealerOptions.
const (
	DefaultSealEvery    = 1000
	DefaultSealInterval = 10 * time.Second
	DefaultPoll         = 500 * time.Millisecond
	DefaultPageSize     = 1000
)

// Lock lets one sealer among several replicas run at a time (internal/bus.AdvisoryLock is one).
type Lock interface {
	// Acquire blocks until this process holds the lock or ctx ends; held ends when the lock is lost.
	Acquire(ctx context.Context) (held context.Context, release func(), err error)
}

// SealerOptions tune a Sealer; the zero value means the defaults.
type SealerOptions struct {
	// Every: a seal is made once this many events have been chained since the last one (default 1000).
	Every int64
	// Interval: a seal is made when anything was chained since the last one and the last is this old
	// (default 10s).
	Interval time.Duration
	// Poll is how often Run reads the log for new events (default 500ms).
	Poll time.Duration
	// PageSize is how many events one read and one write transaction carry (default 1000).
	PageSize int
	// Gate is the SQLite write gate (nil on PostgreSQL).
	Gate WriteGate
	// Lock, when set, is held while Run seals (PostgreSQL with several replicas).
	Lock Lock
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logger (default: discard).
	Logger *slog.Logger
}

// Sealer follows the log in the order readers see it (Store.ReadAll), extends the chain by one row per
// event and writes a seal every Every events or Interval. It never touches the append path: it runs
// beside the store, in transactions of its own.
type Sealer struct {
	db    *sql.DB
	store eventstore.Store
	key   ed25519.PrivateKey
	keyID string
	opts  SealerOptions
	// relaxed: the database is SQLite, whose chain writes skip their own fsync (see writeRows).
	relaxed bool
}

// NewSealer returns a sealer over db (migrated with 0600) and store, signing with key.
func NewSealer(db *sql.DB, store eventstore.Store, key ed25519.PrivateKey, opts *SealerOptions) (*Sealer, error) {
	if db == nil || store == nil {
		return nil, errors.New("auditchain: sealer needs a database and an event store")
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, errors.New("auditchain: sealer needs an Ed25519 private key")
	}
	var o SealerOptions
	if opts != nil {
		o = *opts
	}
	if o.Every <= 0 {
		o.Every = DefaultSealEvery
	}
	if o.Interval <= 0 {
		o.Interval = DefaultSealInterval
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.PageSize <= 0 {
		o.PageSize = DefaultPageSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	relaxed := strings.Contains(strings.ToLower(fmt.Sprintf("%T", db.Driver())), "sqlite")
	return &Sealer{db: db, store: store, key: key, keyID: KeyID(key.Public().(ed25519.PublicKey)), opts: o, relaxed: relaxed}, nil
}

// Status is where the chain stands after a Sync.
type Status struct {
	Head     Row  // the last chained event (Seq 0: none)
	Chained  int  // events chained by this Sync
	LastSeal Seal // the newest seal (Seq 0: none)
	Sealed   bool // whether this Sync wrote a seal
}

// Sync chains every event the log lets readers see now, sealing every Every events, then seals the head
// when it is not sealed yet and either force is set or the last seal is older than Interval. It reads
// where the chain stands from the database each time, so a sealer that takes over from another
// replica goes on where that one stopped.
func (s *Sealer) Sync(ctx context.Context, force bool) (Status, error) {
	h, err := head(ctx, s.db)
	if err != nil {
		return Status{}, err
	}
	last, _, err := LatestSeal(ctx, s.db)
	if err != nil {
		return Status{}, err
	}
	st := Status{Head: h, LastSeal: last}
	buf := make([]byte, 0, 4096)
	for {
		page, err := s.store.ReadAll(ctx, st.Head.Position, s.opts.PageSize)
		if err != nil {
			return st, fmt.Errorf("auditchain: read log after %s: %w", st.Head.Position, err)
		}
		if len(page) == 0 {
			break
		}
		rows := make([]Row, len(page))
		prev, lastSeal := st.Head, st.LastSeal
		var seals []Seal
		for i, env := range page {
			buf = Encode(buf[:0], prev.Hash, env)
			rows[i] = Row{Seq: prev.Seq + 1, Position: env.Position, EventID: env.ID.String(), Hash: Hash(sha256.Sum256(buf))}
			prev = rows[i]
			if prev.Seq-lastSeal.Seq >= s.opts.Every {
				lastSeal = s.seal(prev)
				seals = append(seals, lastSeal)
			}
		}
		if err := writeRows(ctx, s.db, s.opts.Gate, s.relaxed, rows, seals); err != nil {
			return st, err
		}
		st.Head, st.LastSeal = prev, lastSeal
		st.Chained += len(rows)
		st.Sealed = st.Sealed || len(seals) > 0
		if len(page) < s.opts.PageSize {
			break
		}
	}
	if st.Head.Seq > st.LastSeal.Seq && (force || s.opts.Now().Sub(st.LastSeal.SealedAt) >= s.opts.Interval) {
		seal := s.seal(st.Head)
		if err := writeRows(ctx, s.db, s.opts.Gate, s.relaxed, nil, []Seal{seal}); err != nil {
			return st, err
		}
		st.LastSeal, st.Sealed = seal, true
	}
	return st, nil
}

func (s *Sealer) seal(r Row) Seal {
	seal := Seal{Seq: r.Seq, Position: r.Position, Head: r.Hash, SealedAt: s.opts.Now().UTC(), KeyID: s.keyID}
	seal.sign(s.key)
	return seal
}

// Run syncs every Poll until ctx ends. With a Lock it syncs only while it holds the lock, so one
// replica seals at a time; a failed sync is logged and retried at the next tick.
func (s *Sealer) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		held, release := ctx, func() {}
		if s.opts.Lock != nil {
			var err error
			held, release, err = s.opts.Lock.Acquire(ctx)
			if err != nil {
				if ctx.Err() != nil {
					break
				}
				s.opts.Logger.Warn("audit sealer: lock", "err", err)
				if !sleep(ctx, s.opts.Poll) {
					break
				}
				continue
			}
		}
		s.loop(held)
		release()
	}
	return ctx.Err()
}

func (s *Sealer) loop(ctx context.Context) {
	for {
		if _, err := s.Sync(ctx, false); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("audit sealer: sync failed; retrying", "err", err)
		}
		if !sleep(ctx, s.opts.Poll) {
			return
		}
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// PublicKey is the key the sealer's seals verify with.
func (s *Sealer) PublicKey() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }
