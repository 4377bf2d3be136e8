package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/google/uuid"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/workbench/workbench/eventstore"
)

// Options tune a Store; nil means defaults.
type Options struct {
	// OnCommit, when set, is called once per durable batch that wrote events, with those events in
	// commit order, before the appenders are answered (the server wakes projections and publishes to
	// the bus here). It runs on the single writer goroutine: it must not block long and must not append.
	OnCommit func([]eventstore.Envelope)
	// Logger receives failed batches; nil discards.
	Logger *slog.Logger
	// MaxBatch caps how many appends share one transaction (default: eventstore.Batcher's).
	MaxBatch int
	// PollInterval is how often Subscribe looks for events appended by another process on the same
	// file, which wakes no subscriber here (default: eventstore.Follow's).
	PollInterval time.Duration
}

// Store is the SQLite event store. It does not own the *sql.DB it is given: Close stops the store,
// and the caller closes the database (projections keep their read models in the same file).
type Store struct {
	db       *sql.DB
	log      *slog.Logger
	onCommit func([]eventstore.Envelope)
	poll     time.Duration

	batcher *eventstore.Batcher
	notify  *eventstore.Notifier
	closed  chan struct{}
	once    sync.Once

	// written holds the envelopes of the batch being committed. Only the batcher's goroutine touches
	// it: commit fills it, afterCommit hands it on.
	written []eventstore.Envelope
}

var _ eventstore.Store = (*Store)(nil)

// New returns a Store on db, which must already hold the events table (migrations.Apply with
// migrations.SQLite). db should come from OpenDB.
func New(db *sql.DB, opts *Options) (*Store, error) {
	if opts == nil {
		opts = &Options{}
	}
	s := &Store{
		db:       db,
		log:      opts.Logger,
		onCommit: opts.OnCommit,
		poll:     opts.PollInterval,
		notify:   eventstore.NewNotifier(),
		closed:   make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `SELECT position, id, stream, version, type, schema_version, data, metadata FROM events LIMIT 0`); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: the events table is missing or has the wrong shape (apply the migrations first): %w", err)
	}
	s.batcher = eventstore.NewBatcher(s.commit, &eventstore.BatcherOptions{MaxBatch: opts.MaxBatch, AfterCommit: s.afterCommit})
	return s, nil
}

func (s *Store) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func position(p int64) eventstore.Position {
	return eventstore.Position{Commit: uint64(p), Prepare: uint64(p)}
}

// Append implements eventstore.Store. It returns once the batch holding the events is committed and
// fsynced.
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return eventstore.Position{}, err
	}
	if s.isClosed() {
		return eventstore.Position{}, eventstore.ErrClosed
	}
	return s.batcher.Append(ctx, eventstore.AppendRequest{Stream: stream, Expected: expected, Events: events})
}

// Close implements eventstore.Store: it refuses new appends, commits those already queued, and ends
// every Subscribe with ErrClosed. It does not close the *sql.DB. Later calls return nil.
func (s *Store) Close() error {
	s.once.Do(func() {
		close(s.closed)
		s.batcher.Close()
	})
	return nil
}

const selectEnvelope = `SELECT position, id, stream, version, type, schema_version, data, metadata FROM events `

// Load implements eventstore.Store.
func (s *Store) Load(ctx context.Context, stream string, fromVersion int64) ([]eventstore.Envelope, error) {
	if s.isClosed() {
		return nil, eventstore.ErrClosed
	}
	rows, err := s.db.QueryContext(ctx, selectEnvelope+`WHERE stream = $1 AND version >= $2 ORDER BY version`, stream, fromVersion)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: load %q: %w", stream, err)
	}
	envs, err := scanEnvelopes(rows)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: load %q: %w", stream, err)
	}
	return envs, nil
}

// ReadAll implements eventstore.Store. Positions are gap-free and assigned in commit order by the one
// writer SQLite allows, so everything below the highest visible position is visible too.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("eventstore/sqlite: ReadAll limit %d: want at least 1", limit)
	}
	if s.isClosed() {
		return nil, eventstore.ErrClosed
	}
	if from.Commit > math.MaxInt64 {
		return nil, nil
	}
	rows, err := s.db.QueryContext(ctx, selectEnvelope+`WHERE position > $1 ORDER BY position LIMIT $2`, int64(from.Commit), limit)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: read all after %s: %w", from, err)
	}
	envs, err := scanEnvelopes(rows)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: read all after %s: %w", from, err)
	}
	return envs, nil
}

// Subscribe implements eventstore.Store with eventstore.Follow: woken by this store's commits, and
// polling for those of other processes.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, fn func(eventstore.Envelope) error) error {
	if s.isClosed() {
		return eventstore.ErrClosed
	}
	err := eventstore.Follow(ctx, s.ReadAll, s.notify, from, fn, &eventstore.FollowOptions{PollInterval: s.poll, Closed: s.closed})
	if errors.Is(err, eventstore.ErrClosed) {
		return eventstore.ErrClosed
	}
	return err
}

func scanEnvelopes(rows *sql.Rows) ([]eventstore.Envelope, error) {
	defer rows.Close()
	var out []eventstore.Envelope
	for rows.Next() {
		var (
			env      eventstore.Envelope
			pos      int64
			id       string
			data, md []byte
		)
		if err := rows.Scan(&pos, &id, &env.Stream, &env.Version, &env.Type, &env.SchemaVersion, &data, &md); err != nil {
			return nil, err
		}
		var err error
		if env.ID, err = uuid.Parse(id); err != nil {
			return nil, fmt.Errorf("event at position %d: id %q: %w", pos, id, err)
		}
		if err := json.Unmarshal(md, &env.Metadata); err != nil {
			return nil, fmt.Errorf("event at position %d: metadata: %w", pos, err)
		}
		env.Position = position(pos)
		env.Data = data
		out = append(out, env)
	}
	return out, rows.Err()
}

// afterCommit runs on the batcher goroutine once a batch is durable, before its appenders are answered.
func (s *Store) afterCommit([]eventstore.AppendRequest, []eventstore.AppendOutcome) {
	written := s.written
	s.written = nil
	if len(written) == 0 {
		return
	}
	if s.onCommit != nil {
		s.onCommit(written)
	}
	s.notify.Broadcast()
}

// commit is the Batcher's CommitFunc: one IMMEDIATE transaction for the whole batch, each request in
// its own savepoint so that one that fails (a conflict, a reused event id, a constraint) fails alone
// and leaves nothing behind. An error that ends the transaction itself (I/O, disk full, a trigger
// that rolls back) fails the whole batch and nothing of it is visible.
func (s *Store) commit(ctx context.Context, batch []eventstore.AppendRequest) (outcomes []eventstore.AppendOutcome, err error) {
	s.written = nil
	defer func() {
		if err != nil {
			s.written = nil
			s.log.Error("event batch failed, nothing of it was committed", "appends", len(batch), "err", err)
		}
	}()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: connect: %w", err)
	}
	defer conn.Close()
	// BEGIN IMMEDIATE takes the write lock now (waiting up to busy_timeout for another process), so
	// the MAX(position) read below cannot go stale before we write.
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			// Fails harmlessly when SQLite already rolled the transaction back.
			conn.ExecContext(context.Background(), `ROLLBACK`) //nolint:errcheck
		}
	}()

	w := &batchWriter{conn: conn, versions: map[string]int64{}}
	if err := conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(position), 0) FROM events`).Scan(&w.last); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: read last position: %w", err)
	}
	if w.insert, err = conn.PrepareContext(ctx, `INSERT INTO events (position, id, stream, version, type, schema_version, data, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: prepare insert: %w", err)
	}
	defer w.insert.Close()

	outcomes = make([]eventstore.AppendOutcome, len(batch))
	for i, req := range batch {
		if outcomes[i], err = w.apply(ctx, req); err != nil {
			return nil, err
		}
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: commit: %w", err)
	}
	committed = true
	if s.onCommit != nil {
		// Hand OnCommit its own copy of each body: the appenders own the slices they passed in.
		for i := range w.written {
			w.written[i].Data = append(json.RawMessage(nil), w.written[i].Data...)
		}
	}
	s.written = w.written
	return outcomes, nil
}

// batchWriter applies the requests of one batch inside its transaction.
type batchWriter struct {
	conn     *sql.Conn
	insert   *sql.Stmt
	last     int64            // the highest position written so far
	versions map[string]int64 // stream -> its version, as of this transaction
	written  []eventstore.Envelope
}

// apply writes one request. A refusal that concerns this request alone comes back in the outcome; an
// error means the transaction is unusable and the batch must fail.
func (w *batchWriter) apply(ctx context.Context, req eventstore.AppendRequest) (eventstore.AppendOutcome, error) {
	current, ok := w.versions[req.Stream]
	if !ok {
		if err := w.conn.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = $1`, req.Stream).Scan(&current); err != nil {
			return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: read version of %q: %w", req.Stream, err)
		}
		w.versions[req.Stream] = current
	}
	if !req.Expected.Matches(current) {
		// Perhaps the retry of an append that already committed.
		pos, done, refusal, err := w.retried(ctx, req)
		switch {
		case err != nil:
			return eventstore.AppendOutcome{}, err
		case refusal != nil:
			return eventstore.AppendOutcome{Err: refusal}, nil
		case done:
			return eventstore.AppendOutcome{Position: pos}, nil
		}
		return eventstore.AppendOutcome{Err: &eventstore.ConflictError{Stream: req.Stream, Expected: req.Expected, Actual: current}}, nil
	}

	if _, err := w.conn.ExecContext(ctx, `SAVEPOINT append_request`); err != nil {
		return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: savepoint: %w", err)
	}
	envs := make([]eventstore.Envelope, len(req.Events))
	var insertErr error
	for i, ev := range req.Events {
		md, err := json.Marshal(ev.Metadata)
		if err != nil {
			insertErr = fmt.Errorf("eventstore/sqlite: encode metadata of event %s: %w", ev.ID, err)
			break
		}
		pos, version := w.last+int64(i)+1, current+int64(i)+1
		if _, err := w.insert.ExecContext(ctx, pos, ev.ID.String(), req.Stream, version, ev.Type, ev.SchemaVersion, string(ev.Data), string(md)); err != nil {
			if !isConstraint(err) {
				return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: insert into %q: %w", req.Stream, err)
			}
			insertErr = fmt.Errorf("eventstore/sqlite: append to %q: %w", req.Stream, err)
			break
		}
		envs[i] = eventstore.Envelope{
			ID: ev.ID, Stream: req.Stream, Version: version, Position: position(pos),
			Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data, Metadata: ev.Metadata,
		}
	}
	if insertErr != nil {
		// Undo this request's rows and keep the rest of the batch. If the savepoint is gone, SQLite
		// rolled back the whole transaction (a trigger's RAISE(ROLLBACK), say): the batch fails.
		if _, err := w.conn.ExecContext(ctx, `ROLLBACK TO append_request`); err != nil {
			return eventstore.AppendOutcome{}, fmt.Errorf("%w (and the transaction is lost: %v)", insertErr, err)
		}
		if _, err := w.conn.ExecContext(ctx, `RELEASE append_request`); err != nil {
			return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: release savepoint: %w", err)
		}
		// A unique id that is already stored: a retry with expected Any, or a reused id.
		pos, done, refusal, err := w.retried(ctx, req)
		switch {
		case err != nil:
			return eventstore.AppendOutcome{}, err
		case refusal != nil:
			return eventstore.AppendOutcome{Err: refusal}, nil
		case done:
			return eventstore.AppendOutcome{Position: pos}, nil
		}
		return eventstore.AppendOutcome{Err: insertErr}, nil
	}
	if _, err := w.conn.ExecContext(ctx, `RELEASE append_request`); err != nil {
		return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: release savepoint: %w", err)
	}
	n := int64(len(req.Events))
	w.last += n
	w.versions[req.Stream] = current + n
	w.written = append(w.written, envs...)
	return eventstore.AppendOutcome{Position: position(w.last)}, nil
}

// retried recognises the retry of an append that already committed: every event id is stored, in this
// stream, in this order, at consecutive versions that follow the expected version (or expected is
// Any). It then reports done with the original position. Ids stored anywhere else come back as a
// refusal of this request; no stored id at all means neither (a plain conflict or constraint).
func (w *batchWriter) retried(ctx context.Context, req eventstore.AppendRequest) (pos eventstore.Position, done bool, refusal, err error) {
	type stored struct {
		stream   string
		version  int64
		position int64
	}
	found := make([]*stored, len(req.Events))
	known := 0
	for i, ev := range req.Events {
		var st stored
		err := w.conn.QueryRowContext(ctx, `SELECT stream, version, position FROM events WHERE id = $1`, ev.ID.String()).Scan(&st.stream, &st.version, &st.position)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return pos, false, nil, fmt.Errorf("eventstore/sqlite: look up event %s: %w", ev.ID, err)
		default:
			found[i] = &st
			known++
		}
	}
	if known == 0 {
		return pos, false, nil, nil
	}
	first := found[0]
	for i, ev := range req.Events {
		st := found[i]
		if st == nil {
			return pos, false, fmt.Errorf("eventstore: append to %q mixes %d already stored event ids with new ones (event %s is new)", req.Stream, known, ev.ID), nil
		}
		if first == nil || st.stream != req.Stream || st.version != first.version+int64(i) ||
			(req.Expected != eventstore.Any && int64(req.Expected) != first.version-1) {
			return pos, false, fmt.Errorf("eventstore: event id %s is already stored in stream %q at version %d; it cannot be appended to %q at %s", ev.ID, st.stream, st.version, req.Stream, req.Expected), nil
		}
	}
	return position(found[len(found)-1].position), true, nil, nil
}

// isConstraint reports whether err is SQLite refusing a row (a UNIQUE, CHECK or NOT NULL constraint,
// or a trigger's RAISE), as opposed to the database failing.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}
