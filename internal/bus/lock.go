package bus

import (
	"context"
	"fmt"
	"hash/fnv"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// Lock lets one relay among several replicas publish at a time.
type Lock interface {
	// Acquire blocks until this process holds the lock, or ctx ends. The returned context ends when
	// the lock is lost (or ctx ends); release gives the lock up and must be called once.
	Acquire(ctx context.Context) (held context.Context, release func(), err error)
}

// AdvisoryLock is a PostgreSQL session advisory lock held on a connection of its own, opened for
// it and used for nothing else. The lock lives as long as that session: when the holding process
// dies, PostgreSQL ends the session and frees the lock, and a waiting replica takes it over on its
// next try. The holder pings its connection and reports the lock lost when the ping fails, since a
// broken session may already have freed the lock for someone else.
type AdvisoryLock struct {
	url      string
	key      int64
	interval time.Duration
	log      *slog.Logger
}

// AdvisoryLockKey turns a name into an advisory lock key.
func AdvisoryLockKey(name string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte("workbench:" + name))
	return int64(h.Sum64())
}

// NewAdvisoryLock returns a lock on key in the PostgreSQL database at url. interval is how often a
// waiting replica retries and the holder pings (default 1s). log may be nil.
func NewAdvisoryLock(url string, key int64, interval time.Duration, log *slog.Logger) *AdvisoryLock {
	if interval <= 0 {
		interval = time.Second
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &AdvisoryLock{url: url, key: key, interval: interval, log: log}
}

// Acquire tries pg_try_advisory_lock every interval until it succeeds or ctx ends. A connection
// that fails is reported as an error, for the caller to retry.
func (l *AdvisoryLock) Acquire(ctx context.Context) (context.Context, func(), error) {
	conn, err := pgx.Connect(ctx, l.url)
	if err != nil {
		return nil, nil, fmt.Errorf("bus: advisory lock: connect: %w", err)
	}
	waiting := false
	for {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, l.key).Scan(&got); err != nil {
			conn.Close(context.Background()) //nolint:errcheck
			return nil, nil, fmt.Errorf("bus: advisory lock %d: %w", l.key, err)
		}
		if got {
			break
		}
		if !waiting {
			l.log.Info("bus: another replica holds the relay lock; waiting to take over", "key", l.key)
			waiting = true
		}
		t := time.NewTimer(l.interval)
		select {
		case <-ctx.Done():
			t.Stop()
			conn.Close(context.Background()) //nolint:errcheck
			return nil, nil, ctx.Err()
		case <-t.C:
		}
	}

	held, lost := context.WithCancel(ctx)
	stopped := make(chan struct{})
	go func() {
		// Only this goroutine uses conn until release has stopped it.
		defer close(stopped)
		t := time.NewTicker(l.interval)
		defer t.Stop()
		for {
			select {
			case <-held.Done():
				return
			case <-t.C:
				pctx, cancel := context.WithTimeout(held, l.interval*5)
				err := conn.Ping(pctx)
				cancel()
				if err != nil && held.Err() == nil {
					l.log.Warn("bus: relay lock connection failed; the lock may be lost", "key", l.key, "err", err)
					lost()
					return
				}
			}
		}
	}()
	release := func() {
		lost()
		<-stopped
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		// Unlock explicitly, then end the session, which frees the lock in any case.
		_, _ = conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key)
		_ = conn.Close(ctx)
	}
	return held, release, nil
}
