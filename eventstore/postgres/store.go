package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/eventstore"
)

// NotifyChannel is the LISTEN/NOTIFY channel append transactions notify while another store listens.
const NotifyChannel = "workbench_events"

// listenerApp is the application_name of every store's listening connection: how a store finds, in
// pg_stat_activity, whether any other store listens on this database (watchPeers).
const listenerApp = "workbench event listener"

// Peer detection (watchPeers). A store notifies only while another store's listener is connected to
// the database: its own listener would only wake subscribers its appends wake already. It looks every
// peerCheck; a listener that has just connected is therefore told of appends at most about a
// peerCheck late, so it wakes its subscribers again peerGrace after it connected, which covers
// whatever was appended unnotified meanwhile.
const (
	peerCheck = 200 * time.Millisecond
	peerGrace = 5 * peerCheck
)

// Options tune a Store; nil means defaults.
type Options struct {
	// OnCommit, when set, is called once per durable batch with the events it wrote, in global order,
	// before the appending callers are answered (publish to the bus, wake projections). Calls never
	// overlap (one batch commits at a time). It must not block long: the next batch waits for it.
	OnCommit func([]eventstore.Envelope)
	// Logger receives the store's own diagnostics (listener reconnects, retried batches). Default: none.
	Logger *slog.Logger
	// PollInterval is how often a subscriber re-reads without a wake-up (default 200ms).
	PollInterval time.Duration
	// MaxBatch caps the appends one transaction takes (default 256).
	MaxBatch int
}

// Store is an eventstore.Store on a PostgreSQL database whose migrations are applied.
type Store struct {
	pool     *pgxpool.Pool
	log      *slog.Logger
	onCommit func([]eventstore.Envelope)
	poll     time.Duration

	batcher *eventstore.Batcher
	// inTx is the in-transaction hook (SetInTransaction). While one is installed, batches are written
	// on held, a database/sql connection on the pool (through sqlDB) kept from batch to batch, so the
	// hook's prepared statements stay prepared; only the commit holding the batcher's turn touches held.
	inTx  atomic.Pointer[InTransaction]
	sqlDB *sql.DB
	held  *sql.Conn
	// fast counts the batches committed in one round trip, slowAfterFast those whose one-round-trip
	// insert was refused (tests read them).
	fast, slowAfterFast atomic.Int64
	// heads is the last version this store has seen committed per stream, from its own batches and
	// the versions it read under the streams' locks (one commit at a time; bounded by maxHeads).
	// Versions only grow, so a stream seen at version v has it still, and an append expecting v
	// needs no check that the stream exists that far (planFast).
	heads map[string]int64
	wake  *eventstore.Notifier
	// listenerPID is the backend pid of this store's listening connection (0 while it is not
	// listening); lonely says that the last look at pg_stat_activity found it listening and found no
	// other store's listener (notifyWanted).
	listenerPID atomic.Uint32
	lonely      atomic.Bool

	closed       chan struct{}
	closeOnce    sync.Once
	stopListen   context.CancelFunc
	listenerDone chan struct{}
}

var _ eventstore.Store = (*Store)(nil)

// New returns a Store on pool. The caller keeps ownership of pool and closes it after Store.Close. New
// checks that the events table exists and starts the listener that wakes subscribers.
func New(ctx context.Context, pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, errors.New("postgres: nil pool")
	}
	s := &Store{
		pool:         pool,
		log:          slog.New(slog.DiscardHandler),
		wake:         eventstore.NewNotifier(),
		closed:       make(chan struct{}),
		listenerDone: make(chan struct{}),
	}
	maxBatch := 0
	if opts != nil {
		if opts.Logger != nil {
			s.log = opts.Logger
		}
		s.onCommit = opts.OnCommit
		s.poll = opts.PollInterval
		maxBatch = opts.MaxBatch
	}
	var present bool
	if err := pool.QueryRow(ctx, `SELECT to_regclass('events') IS NOT NULL`).Scan(&present); err != nil {
		return nil, fmt.Errorf("postgres: check schema: %w", err)
	}
	if !present {
		return nil, errors.New("postgres: table events is missing; apply the postgres migrations first")
	}
	s.batcher = eventstore.NewBatcher(s.commit, &eventstore.BatcherOptions{MaxBatch: maxBatch})
	lctx, stop := context.WithCancel(context.Background())
	s.stopListen = stop
	go s.listen(lctx)
	go s.watchPeers(lctx)
	return s, nil
}

// Close commits the appends already queued, stops the listener and makes every later call fail with
// eventstore.ErrClosed. It does not close the pool. Calling it again returns ErrClosed.
func (s *Store) Close() error {
	err := eventstore.ErrClosed
	s.closeOnce.Do(func() {
		err = nil
		s.batcher.Close()
		if s.held != nil {
			s.held.Close()
		}
		if s.sqlDB != nil {
			s.sqlDB.Close()
		}
		close(s.closed)
		s.stopListen()
		<-s.listenerDone
	})
	return err
}

// InTransaction is called inside every batch's transaction that writes events, after they are
// inserted and before COMMIT, with the position of the last event ordered before the batch and the
// batch's events in global order (their Data is the appenders' and must not be kept). It is called
// only when that position is certain: no transaction that could still write an event ordered before
// the batch is running (see beforeSQL); otherwise the batch commits without it. It may write through
// conn, a database/sql connection inside the transaction: a read model kept in the append's own
// transaction, durable with the events' commit (projections.Runner.InTransaction). It must leave the
// transaction open and usable and must not fail it: whatever it cannot do it leaves to be done later,
// since the batch commits either way (a hook that ends the transaction fails the batch, and the
// batcher decides it again). The function it returns, when not nil, is called once the transaction
// has ended, with whether it committed. It runs in the batch's commit (on the batcher's goroutine,
// or a lone appender's) while the batch waits: it must be quick and must not append.
type InTransaction func(ctx context.Context, conn *sql.Conn, before eventstore.Position, envs []eventstore.Envelope) (after func(committed bool))

// SetInTransaction installs fn (nil removes it) for the batches that start from now on. A batch
// written with a hook takes two round trips instead of one (the hook runs between the insert and the
// commit).
func (s *Store) SetInTransaction(fn InTransaction) {
	if fn == nil {
		s.inTx.Store(nil)
		return
	}
	s.inTx.Store(&fn)
}

// batchConn is the connection one batch is written on: a pool connection, or the held database/sql
// connection when a hook is installed (sql is then set).
type batchConn struct {
	conn    *pgx.Conn
	sql     *sql.Conn
	release func()
}

// acquire returns the connection for one batch (one commit at a time: the batcher's turn).
func (s *Store) acquire(ctx context.Context) (*batchConn, error) {
	if s.inTx.Load() == nil {
		if s.held != nil {
			s.held.Close()
			s.held = nil
		}
		pc, err := s.pool.Acquire(ctx)
		if err != nil {
			return nil, err
		}
		return &batchConn{conn: pc.Conn(), release: pc.Release}, nil
	}
	if s.held == nil {
		if s.sqlDB == nil {
			s.sqlDB = stdlib.OpenDBFromPool(s.pool)
		}
		c, err := s.sqlDB.Conn(ctx)
		if err != nil {
			return nil, err
		}
		s.held = c
	}
	var conn *pgx.Conn
	if err := s.held.Raw(func(dc any) error {
		sc, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("database/sql connection is a %T, not pgx's", dc)
		}
		conn = sc.Conn()
		return nil
	}); err != nil {
		s.held.Close()
		s.held = nil
		return nil, err
	}
	// The pgx connection is used beside database/sql's: the held *sql.Conn is this goroutine's alone
	// and is not used by anyone else meanwhile, so the two never overlap.
	held := s.held
	return &batchConn{conn: conn, sql: held, release: func() {
		if conn.IsClosed() {
			held.Close()
			if s.held == held {
				s.held = nil
			}
		}
	}}, nil
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// Append implements eventstore.Store.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if s.isClosed() {
		return eventstore.Position{}, eventstore.ErrClosed
	}
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return eventstore.Position{}, err
	}
	return s.batcher.Append(ctx, eventstore.AppendRequest{Stream: stream, Expected: expected, Events: events})
}

const selectColumns = `xid, position, id, stream, version, type, schema_version, data, metadata`

// Load implements eventstore.Store. It reads committed rows directly, not only those below the xmin
// line: a stream's own order is its version, which has no gaps.
func (s *Store) Load(ctx context.Context, stream string, fromVersion int64) ([]eventstore.Envelope, error) {
	if s.isClosed() {
		return nil, eventstore.ErrClosed
	}
	rows, err := s.pool.Query(ctx, `SELECT `+selectColumns+` FROM events WHERE stream = $1 AND version >= $2 ORDER BY version`, stream, fromVersion)
	if err != nil {
		return nil, fmt.Errorf("postgres: load %q: %w", stream, err)
	}
	envs, err := scanEnvelopes(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: load %q: %w", stream, err)
	}
	return envs, nil
}

// readAllSQL is the gap-free global read: rows strictly after the given (xid, position), written by
// transactions below the line past which something may still commit. The line is the oldest
// transaction still running in this database at the statement's snapshot (or, when there is none, the
// snapshot's xmax): every transaction below it has ended, so nothing can later commit behind the reader.
//
// pg_snapshot_xmin(pg_current_snapshot()) alone would be a correct line too, but it counts every
// running transaction in the cluster, so a long transaction in another database (a migration, CREATE
// DATABASE, a report) would hold readers here back although it can never write this table. The line
// below leaves out exactly the running transactions that pg_stat_activity shows belonging to another
// database: a backend is bound to one database for life, so that is certain even if the activity view
// is a moment younger than the snapshot. Anything it cannot place (a prepared transaction, a backend
// whose xid it may not see) stays in, which only delays readers. pg_current_snapshot() is the
// statement's snapshot, the same one the events are read with. backend_xid is a 32-bit xid; two running
// transactions never share the low 32 bits of their xid8.
const readAllSQL = `SELECT ` + selectColumns + ` FROM events
WHERE (xid, position) > ($1::xid8, $2::bigint)
  AND xid < (
    SELECT COALESCE(min(x), pg_snapshot_xmax(pg_current_snapshot()))
    FROM pg_snapshot_xip(pg_current_snapshot()) AS x
    WHERE x::text::bigint % 4294967296 NOT IN (
      SELECT backend_xid::text::bigint FROM pg_stat_activity
      WHERE backend_xid IS NOT NULL
        AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database())))
ORDER BY xid, position
LIMIT $3`

// ReadAll implements eventstore.Store.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
	if s.isClosed() {
		return nil, eventstore.ErrClosed
	}
	if limit <= 0 {
		return nil, fmt.Errorf("postgres: read all: limit %d must be positive", limit)
	}
	if from.Prepare > 1<<63-1 {
		return nil, fmt.Errorf("postgres: read all: position %s is out of range", from)
	}
	rows, err := s.pool.Query(ctx, readAllSQL, from.Commit, int64(from.Prepare), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: read all after %s: %w", from, err)
	}
	envs, err := scanEnvelopes(rows)
	if err != nil {
		return nil, fmt.Errorf("postgres: read all after %s: %w", from, err)
	}
	return envs, nil
}

// Subscribe implements eventstore.Store with eventstore.Follow, woken by NOTIFY (from any replica) and
// by this store's own commits, and polling as a safety net.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, fn func(eventstore.Envelope) error) error {
	return eventstore.Follow(ctx, s.ReadAll, s.wake, from, fn, &eventstore.FollowOptions{PollInterval: s.poll, Closed: s.closed})
}

func scanEnvelopes(rows pgx.Rows) ([]eventstore.Envelope, error) {
	defer rows.Close()
	var out []eventstore.Envelope
	for rows.Next() {
		var (
			env      eventstore.Envelope
			xid      uint64
			position int64
			data     []byte
			meta     []byte
		)
		if err := rows.Scan(&xid, &position, &env.ID, &env.Stream, &env.Version, &env.Type, &env.SchemaVersion, &data, &meta); err != nil {
			return nil, err
		}
		env.Position = eventstore.Position{Commit: xid, Prepare: uint64(position)}
		env.Data = data
		if err := json.Unmarshal(meta, &env.Metadata); err != nil {
			return nil, fmt.Errorf("event %s: metadata: %w", env.ID, err)
		}
		out = append(out, env)
	}
	return out, rows.Err()
}

// maxListenBackoff caps the listener's reconnect backoff, so that it is back within about a second of
// the server (a restart, a failover).
const maxListenBackoff = time.Second

// listen keeps a dedicated connection LISTENing on NotifyChannel and wakes subscribers on every
// notification. When the connection drops it reconnects with backoff (at most maxListenBackoff) and
// wakes subscribers once, since notifications sent meanwhile are lost.
func (s *Store) listen(ctx context.Context) {
	defer close(s.listenerDone)
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		connected, err := s.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if connected {
			backoff = 100 * time.Millisecond
		}
		s.log.Warn("postgres: event listener lost its connection; retrying", "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxListenBackoff)
	}
}

// listenOnce reports whether it got as far as listening, and why it stopped.
func (s *Store) listenOnce(ctx context.Context) (bool, error) {
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerApp
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{NotifyChannel}.Sanitize()); err != nil {
		return false, fmt.Errorf("listen: %w", err)
	}
	s.listenerPID.Store(conn.PgConn().PID())
	defer func() {
		s.listenerPID.Store(0)
		s.lonely.Store(false)
	}()
	// Other stores learn of this listener within a peerCheck; what they appended before, without
	// notifying, the second wake-up reads.
	s.wake.Broadcast()
	again := time.AfterFunc(peerGrace, s.wake.Broadcast)
	defer again.Stop()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return true, fmt.Errorf("wait for notification: %w", err)
		}
		s.wake.Broadcast()
	}
}

// notifyWanted reports whether an append should notify NotifyChannel: unless the last look found
// this store's listener alone on the database.
func (s *Store) notifyWanted() bool { return !s.lonely.Load() }

// peersSQL counts the listeners of this database other than $1, and tells whether $1 is among them.
const peersSQL = `SELECT count(*) FILTER (WHERE pid <> $1), coalesce(bool_or(pid = $1), false)
FROM pg_stat_activity WHERE datname = current_database() AND application_name = $2`

// watchPeers looks every peerCheck whether any other store listens on the database, and sets lonely
// when none does and this store's own listener is seen (a view that does not show it cannot be
// trusted to show others). Any doubt (no listener, a failed look) leaves notifications on.
func (s *Store) watchPeers(ctx context.Context) {
	t := time.NewTicker(peerCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pid := s.listenerPID.Load()
		if pid == 0 {
			s.lonely.Store(false)
			continue
		}
		var others int64
		var self bool
		qctx, cancel := context.WithTimeout(ctx, peerCheck)
		err := s.pool.QueryRow(qctx, peersSQL, int64(pid), listenerApp).Scan(&others, &self)
		cancel()
		s.lonely.Store(err == nil && self && others == 0 && s.listenerPID.Load() == pid)
	}
}

// Stats returns the group commits made so far and the events they carried.
func (s *Store) Stats() eventstore.BatchStats { return s.batcher.Stats() }
