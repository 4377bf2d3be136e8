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
	"sync/atomic"
	"time"
	"unicode/utf8"

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
	// WriteGate, when set, is held around every batch's write transaction; give the same gate to
	// every other writer of the database file (see WriteGate).
	WriteGate *WriteGate
	// CheckpointEvery is how many events are appended between two background WAL checkpoints
	// (default 1000); see checkpointer.
	CheckpointEvery int
	// MaxWALPages is the WAL size, in pages, past which the background checkpoint waits for the
	// readers to finish it (RESTART) instead of copying what it can alongside them (default 16384,
	// 64 MiB of 4 KiB pages).
	MaxWALPages int
}

// Store is the SQLite event store. It does not own the *sql.DB it is given: Close stops the store,
// and the caller closes the database (projections keep their read models in the same file).
type Store struct {
	db       *sql.DB
	log      *slog.Logger
	onCommit func([]eventstore.Envelope)
	inTx     atomic.Pointer[InTransaction]
	poll     time.Duration
	gate     *WriteGate

	batcher *eventstore.Batcher
	notify  *eventstore.Notifier
	closed  chan struct{}
	once    sync.Once

	// The background WAL checkpoint (checkpointer): written counts the events appended since the
	// last one (one commit at a time: the batcher's turn), kick wakes it, checkpointDone closes when
	// it has stopped.
	written         int
	checkpointEvery int
	maxWALPages     int
	kick            chan struct{}
	checkpointDone  chan struct{}

	// rows holds what the batch being committed stored (for the tail and OnCommit, whose envelopes
	// afterCommit builds once the write gate is released). Only the commit holding the batcher's
	// turn touches it: commit fills it, afterCommit hands it on.
	rows []row
	// w is the connection batches are written on, with its prepared statements, kept from one batch to
	// the next (one commit at a time; nil until the first batch and after a failed one).
	w *writer
	// tail serves reads of the latest events from memory (see tail).
	tail *tail
	// oneByOne counts the batches written again request by request (commit only; tests read it).
	oneByOne int
	// prepared counts the statements prepared on writer connections (one commit at a time; tests
	// read it: a steady stream of batches prepares nothing).
	prepared int
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
		gate:     opts.WriteGate,
		notify:   eventstore.NewNotifier(),
		closed:   make(chan struct{}),

		checkpointEvery: opts.CheckpointEvery,
		maxWALPages:     opts.MaxWALPages,
		kick:            make(chan struct{}, 1),
		checkpointDone:  make(chan struct{}),
	}
	if s.checkpointEvery <= 0 {
		s.checkpointEvery = 1000
	}
	if s.maxWALPages <= 0 {
		s.maxWALPages = 16384
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := db.ExecContext(ctx, `SELECT position, id, stream, version, type, schema_version, data, metadata FROM events LIMIT 0`); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: the events table is missing or has the wrong shape (apply the migrations first): %w", err)
	}
	head, err := db.PrepareContext(ctx, `SELECT COALESCE(MAX(position), 0) FROM events`)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: prepare the head query: %w", err)
	}
	s.tail = &tail{head: head}
	s.batcher = eventstore.NewBatcher(s.commit, &eventstore.BatcherOptions{MaxBatch: opts.MaxBatch, AfterCommit: s.afterCommit})
	go s.checkpointer()
	return s, nil
}

// InTransaction is called inside every batch's transaction that writes events, after they are
// inserted and before COMMIT, with the position of the last event before the batch and the batch's
// events in commit order (their Data is the appenders' and must not be kept). It may write through
// conn: a read model kept in the append's own transaction, durable with the same fsync
// (projections.Runner.InTransaction). It must leave the transaction open and usable and must not
// fail it: whatever it cannot do it leaves to be done later, since the batch commits either way. The
// function it returns, when not nil, is called once the transaction has ended, with whether it
// committed. It runs on the single writer goroutine with the write lock held: it must be quick and
// must not append.
type InTransaction func(ctx context.Context, conn *sql.Conn, before eventstore.Position, envs []eventstore.Envelope) (after func(committed bool))

// SetInTransaction installs fn (nil removes it) for the batches that start from now on.
func (s *Store) SetInTransaction(fn InTransaction) {
	if fn == nil {
		s.inTx.Store(nil)
		return
	}
	s.inTx.Store(&fn)
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
// every Subscribe with ErrClosed. It does not close the *sql.DB. Calling it again returns ErrClosed.
func (s *Store) Close() error {
	err := eventstore.ErrClosed
	s.once.Do(func() {
		err = nil
		close(s.closed)
		s.batcher.Close()
		<-s.checkpointDone
		s.dropWriter()      // the batcher has stopped: no batch uses it any more
		s.tail.head.Close() //nolint:errcheck // a read racing this falls back to SQLite and its error
	})
	return err
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
	if envs, ok := s.tail.read(ctx, from, limit); ok {
		return envs, nil
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
	return eventstore.Follow(ctx, s.ReadAll, s.notify, from, fn, &eventstore.FollowOptions{PollInterval: s.poll, Closed: s.closed})
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

// afterCommit runs in the batcher's turn (on its goroutine, or a lone appender's) once a batch is
// durable, before its appenders are answered.
func (s *Store) afterCommit([]eventstore.AppendRequest, []eventstore.AppendOutcome) {
	rows := s.rows
	s.rows = nil
	if len(rows) == 0 {
		return
	}
	// Built here, after the write gate is released, and added before the wake-up below, so that the
	// readers it wakes find the batch in the tail.
	if envs, err := tailEnvelopes(rows); err != nil {
		// Cannot happen (the batch encoded the metadata itself); reads of these events go to SQLite.
		s.log.Error("eventstore/sqlite: rebuild a committed batch's envelopes", "err", err)
		s.tail.reset()
	} else {
		s.tail.add(envs)
	}
	if s.onCommit != nil {
		s.onCommit(envelopes(rows, true))
	}
	s.notify.Broadcast()
	if s.written += len(rows); s.written >= s.checkpointEvery {
		s.written = 0
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
}

// checkpointer copies the WAL back into the database file in the background, every CheckpointEvery
// events appended, instead of SQLite's automatic checkpoint, which runs inside the commit that
// crosses its threshold and so on the appenders' time (the writer connection has it turned off).
// A PASSIVE checkpoint copies what it can without waiting for anyone; the next writer then starts
// the WAL over from its beginning once every frame is copied and no reader needs them. Should the
// WAL still be past MaxWALPages with frames left uncopied (readers keeping old frames alive), a
// RESTART checkpoint, under the write gate, waits for the readers and has the WAL started over:
// the WAL stays bounded.
func (s *Store) checkpointer() {
	defer close(s.checkpointDone)
	for {
		select {
		case <-s.closed:
			return
		case <-s.kick:
		}
		if err := s.checkpoint(context.Background()); err != nil {
			s.log.Warn("eventstore/sqlite: background WAL checkpoint failed; the next one retries", "err", err)
		}
	}
}

// checkpoint runs one background checkpoint (see checkpointer).
func (s *Store) checkpoint(ctx context.Context) error {
	var busy, logPages, copied int
	if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logPages, &copied); err != nil {
		return fmt.Errorf("passive checkpoint: %w", err)
	}
	if logPages <= s.maxWALPages || copied >= logPages {
		return nil
	}
	if err := s.gate.Lock(ctx); err != nil {
		return err
	}
	defer s.gate.Unlock()
	if err := s.db.QueryRowContext(ctx, `PRAGMA wal_checkpoint(RESTART)`).Scan(&busy, &logPages, &copied); err != nil {
		return fmt.Errorf("restart checkpoint: %w", err)
	}
	return nil
}

// commit is the Batcher's CommitFunc: one IMMEDIATE transaction for the whole batch, as lean as the
// rows allow. Every request is decided in Go, in order, from one read of the batch's stream versions
// (and, for an append that may be a retry, of its event ids), and the accepted events go in through
// one prepared INSERT: no savepoint and no other statement per request. When the database refuses a
// row (a trigger or constraint the decisions cannot foresee, or an id reused by an append whose ids
// were not looked up), the transaction is rolled back and the batch written again request by request,
// each in its own savepoint (applyOneByOne), so that the refused request fails alone and leaves
// nothing. An error that ends the transaction itself (I/O, disk full, a trigger that rolls back) fails
// the whole batch and nothing of it is visible.
func (s *Store) commit(ctx context.Context, batch []eventstore.AppendRequest) (outcomes []eventstore.AppendOutcome, err error) {
	s.rows = nil
	defer func() {
		if err != nil {
			s.rows = nil
			// The connection may be what failed: the next batch starts on a fresh one.
			s.dropWriter()
			s.log.Error("event batch failed, nothing of it was committed", "appends", len(batch), "err", err)
		}
	}()
	// The gate is taken first and released last, after the deferred ROLLBACK below: the next writer
	// of this process starts when this transaction is over, without a trip through the busy handler.
	if err := s.gate.Lock(ctx); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: wait for the write gate: %w", err)
	}
	defer s.gate.Unlock()
	wr, err := s.writer(ctx)
	if err != nil {
		return nil, err
	}
	conn := wr.conn
	inTx := false
	var after func(bool)
	defer func() {
		if inTx {
			// Fails harmlessly when SQLite already rolled the transaction back.
			conn.ExecContext(context.Background(), `ROLLBACK`) //nolint:errcheck
		}
		if after != nil {
			after(err == nil)
		}
	}()
	begin := func() (*batchWriter, error) {
		// BEGIN IMMEDIATE takes the write lock now (waiting up to busy_timeout for another process),
		// so the versions and the last position read below cannot go stale before we write.
		if _, err := wr.begin.ExecContext(ctx); err != nil {
			return nil, fmt.Errorf("eventstore/sqlite: begin: %w", err)
		}
		inTx = true
		return newBatchWriter(ctx, wr)
	}

	w, err := begin()
	if err != nil {
		return nil, err
	}
	outcomes, err = w.applyAll(ctx, batch)
	if _, refused := errors.AsType[*rowRefusedError](err); refused {
		// This fails harmlessly when SQLite already rolled the transaction back (a trigger's
		// RAISE(ROLLBACK)): the request-by-request pass then meets the same failure and reports it.
		conn.ExecContext(ctx, `ROLLBACK`) //nolint:errcheck
		inTx = false
		s.oneByOne++
		if w, err = begin(); err != nil {
			return nil, err
		}
		outcomes, err = w.applyOneByOne(ctx, batch)
	}
	if err != nil {
		return nil, err
	}
	if inTx := s.inTx.Load(); inTx != nil && len(w.rows) > 0 {
		after = (*inTx)(ctx, conn, position(w.rows[0].pos-1), envelopes(w.rows, false))
	}
	if _, err := wr.commit.ExecContext(ctx); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: commit: %w", err)
	}
	inTx = false
	s.rows = w.rows
	return outcomes, nil
}

// writer is the connection batches are written on, held from one batch to the next with its
// statements prepared once: a batch does not wait for a connection from the pool nor parse its
// statements again, BEGIN and COMMIT included (SQLite parses a statement run without preparing it
// anew every time). Only the ways back (ROLLBACK, the savepoints of applyOneByOne) are run unprepared.
type writer struct {
	conn                                                     *sql.Conn
	begin, commit, lastPos, versionOf, versionsOf, byID, ins *sql.Stmt
}

// writer returns the store's writer connection, opening it and preparing its statements when there
// is none (the first batch, or the one after a batch failed).
func (s *Store) writer(ctx context.Context) (*writer, error) {
	if s.w != nil {
		return s.w, nil
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: connect: %w", err)
	}
	w := &writer{conn: conn}
	// The writer never checkpoints inside a commit: checkpointer does, in the background.
	if _, err := conn.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 0`); err != nil {
		conn.Close()
		return nil, fmt.Errorf("eventstore/sqlite: turn off the writer's automatic checkpoint: %w", err)
	}
	for _, st := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&w.begin, `BEGIN IMMEDIATE`},
		{&w.commit, `COMMIT`},
		{&w.lastPos, `SELECT COALESCE(MAX(position), 0) FROM events`},
		{&w.versionOf, `SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = $1`},
		{&w.versionsOf, `SELECT s.value, COALESCE((SELECT MAX(version) FROM events WHERE stream = s.value), 0) FROM json_each($1) AS s`},
		{&w.byID, `SELECT stream, version, position FROM events WHERE id = $1`},
		{&w.ins, `INSERT INTO events (position, id, stream, version, type, schema_version, data, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`},
	} {
		if *st.stmt, err = conn.PrepareContext(ctx, st.sql); err != nil {
			w.close()
			return nil, fmt.Errorf("eventstore/sqlite: prepare %q: %w", st.sql, err)
		}
		s.prepared++
	}
	s.w = w
	return w, nil
}

// dropWriter closes the writer connection and its statements, if any.
func (s *Store) dropWriter() {
	if s.w != nil {
		// The connection goes back to the pool: as the others, it checkpoints automatically again.
		s.w.conn.ExecContext(context.Background(), `PRAGMA wal_autocheckpoint = 1000`) //nolint:errcheck // a broken connection is discarded anyway
		s.w.close()
		s.w = nil
	}
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.begin, w.commit, w.lastPos, w.versionOf, w.versionsOf, w.byID, w.ins} {
		if st != nil {
			st.Close()
		}
	}
	w.conn.Close()
}

// rowRefusedError is the database refusing a row of an INSERT (a UNIQUE, CHECK or NOT NULL constraint,
// or a trigger's RAISE): the statement wrote nothing, and the batch must be written again request by
// request to find whose row it was.
type rowRefusedError struct{ err error }

func (e *rowRefusedError) Error() string { return "eventstore/sqlite: row refused: " + e.err.Error() }
func (e *rowRefusedError) Unwrap() error { return e.err }

// row is one event the batch writes.
type row struct {
	pos, version int64
	stream       string
	ev           *eventstore.EventData
	metadata     string
}

// stored is where an event id is: committed before the batch or written earlier in it.
type stored struct {
	at  eventstore.StoredAt
	pos int64
}

// batchWriter decides and writes the requests of one batch inside its transaction.
type batchWriter struct {
	*writer
	last     int64            // the highest position written so far
	versions map[string]int64 // stream -> its version, as of this transaction
	ids      map[uuid.UUID]stored
	rows     []row // the events written, in position order
	// trustV7: the first pass, where an Any append of UUIDv7 ids is not looked up (see decide).
	trustV7 bool
}

func newBatchWriter(ctx context.Context, wr *writer) (*batchWriter, error) {
	w := &batchWriter{writer: wr, versions: map[string]int64{}, ids: map[uuid.UUID]stored{}}
	if err := wr.lastPos.QueryRowContext(ctx).Scan(&w.last); err != nil {
		return nil, fmt.Errorf("eventstore/sqlite: read last position: %w", err)
	}
	return w, nil
}

// version returns stream's version as of this transaction: read once (by readVersions or here), then
// kept up to date.
func (w *batchWriter) version(ctx context.Context, stream string) (int64, error) {
	if v, ok := w.versions[stream]; ok {
		return v, nil
	}
	var v int64
	if err := w.versionOf.QueryRowContext(ctx, stream).Scan(&v); err != nil {
		return 0, fmt.Errorf("eventstore/sqlite: read version of %q: %w", stream, err)
	}
	w.versions[stream] = v
	return v, nil
}

// readVersions reads the versions of the batch's streams with one statement: the names travel as one
// JSON array, and each stream's version is one probe of the (stream, version) index. A name that is
// not valid UTF-8 would not survive JSON, so it is left for version to read alone.
//
// A stream that only NoStream appends of the batch name, and whose name ends in a UUIDv7 (an
// execution, a proxied request: minted just now, so no one else can have written it), is not read
// at all: it is taken to be new, and should it exist after all, the UNIQUE (stream, version) index
// refuses the first row, and the batch is written again request by request (applyOneByOne), which
// reads every version and answers that append with its *ConflictError.
func (w *batchWriter) readVersions(ctx context.Context, batch []eventstore.AppendRequest) error {
	names := make([]string, 0, len(batch))
	read := make(map[string]bool, len(batch))
	for _, req := range batch {
		if req.Expected != eventstore.NoStream || !endsInUUIDv7(req.Stream) {
			read[req.Stream] = true
		}
	}
	for _, req := range batch {
		if _, ok := w.versions[req.Stream]; !ok && !read[req.Stream] {
			w.versions[req.Stream] = 0 // taken to be new (see above)
			continue
		}
		if _, ok := w.versions[req.Stream]; !ok && utf8.ValidString(req.Stream) {
			w.versions[req.Stream] = 0 // marks it seen; set below
			names = append(names, req.Stream)
		}
	}
	if len(names) == 0 {
		return nil
	}
	list, err := json.Marshal(names)
	if err != nil {
		return fmt.Errorf("eventstore/sqlite: encode stream names: %w", err)
	}
	rows, err := w.versionsOf.QueryContext(ctx, string(list))
	if err != nil {
		return fmt.Errorf("eventstore/sqlite: read stream versions: %w", err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var (
			name string
			v    int64
		)
		if err := rows.Scan(&name, &v); err != nil {
			return fmt.Errorf("eventstore/sqlite: read stream versions: %w", err)
		}
		if n >= len(names) || names[n] != name {
			return fmt.Errorf("eventstore/sqlite: read stream versions: row %d names %q, want %q", n, name, names[min(n, len(names)-1)])
		}
		w.versions[name] = v
		n++
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("eventstore/sqlite: read stream versions: %w", err)
	}
	if n != len(names) {
		return fmt.Errorf("eventstore/sqlite: read stream versions: %d rows for %d streams", n, len(names))
	}
	return nil
}

// endsInUUIDv7 reports whether stream's name ends in a time-ordered UUID (version 7) in its text form.
func endsInUUIDv7(stream string) bool {
	const n = 36
	if len(stream) < n {
		return false
	}
	id, err := uuid.Parse(stream[len(stream)-n:])
	return err == nil && id.Version() == 7
}

// allUUIDv7 reports whether every event's id is a time-ordered UUID (version 7).
func allUUIDv7(events []eventstore.EventData) bool {
	for _, ev := range events {
		if ev.ID.Version() != 7 {
			return false
		}
	}
	return true
}

// lookUp finds which of events' ids are stored, adding them to w.ids.
func (w *batchWriter) lookUp(ctx context.Context, events []eventstore.EventData) error {
	for _, ev := range events {
		if _, ok := w.ids[ev.ID]; ok {
			continue
		}
		var found stored
		err := w.byID.QueryRowContext(ctx, ev.ID.String()).Scan(&found.at.Stream, &found.at.Version, &found.pos)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("eventstore/sqlite: look up event %s: %w", ev.ID, err)
		default:
			w.ids[ev.ID] = found
		}
	}
	return nil
}

// decide returns a request's outcome when it writes nothing (an idempotent retry, a refusal), done
// false when it is to be written on top of the stream at version current. Only an append that may be
// a retry (expected Any, or a version that does not match) has its ids looked up in the database; the
// others are checked against the ids of this batch, and the UNIQUE index refuses a reused one.
// In the first pass (trustV7), an Any append whose event ids are all UUIDv7 (minted just now, as the
// curl proxy's records are) is not looked up either: should it be a retry after all, the UNIQUE index
// refuses its first row, and the request-by-request pass, which looks every such append up, answers
// it as the retry it is.
func (w *batchWriter) decide(ctx context.Context, req eventstore.AppendRequest) (out eventstore.AppendOutcome, current int64, done bool, err error) {
	if current, err = w.version(ctx, req.Stream); err != nil {
		return out, 0, false, err
	}
	if (req.Expected == eventstore.Any && !(w.trustV7 && allUUIDv7(req.Events))) || !req.Expected.Matches(current) {
		if err := w.lookUp(ctx, req.Events); err != nil {
			return out, 0, false, err
		}
	}
	retry, refusal := eventstore.IdempotentRetry(req.Stream, req.Expected, req.Events, func(id uuid.UUID) (eventstore.StoredAt, bool) {
		st, ok := w.ids[id]
		return st.at, ok
	})
	switch {
	case refusal != nil:
		return eventstore.AppendOutcome{Err: refusal}, current, true, nil
	case retry:
		return eventstore.AppendOutcome{Position: position(w.ids[req.Events[len(req.Events)-1].ID].pos)}, current, true, nil
	case !req.Expected.Matches(current):
		return eventstore.AppendOutcome{Err: &eventstore.ConflictError{Stream: req.Stream, Expected: req.Expected, Actual: current}}, current, true, nil
	}
	return out, current, false, nil
}

// plan adds a request's events to the rows of the batch, on top of version current, and returns the
// position of its last event.
func (w *batchWriter) plan(req eventstore.AppendRequest, current int64, metadata []string) eventstore.Position {
	for i := range req.Events {
		ev := &req.Events[i]
		w.last++
		version := current + int64(i) + 1
		w.rows = append(w.rows, row{pos: w.last, version: version, stream: req.Stream, ev: ev, metadata: metadata[i]})
		w.ids[ev.ID] = stored{at: eventstore.StoredAt{Stream: req.Stream, Version: version}, pos: w.last}
	}
	w.versions[req.Stream] = current + int64(len(req.Events))
	return position(w.last)
}

// encodeMetadata encodes the metadata of each event of req.
func encodeMetadata(req eventstore.AppendRequest) ([]string, error) {
	out := make([]string, len(req.Events))
	for i, ev := range req.Events {
		md, err := json.Marshal(ev.Metadata)
		if err != nil {
			return nil, fmt.Errorf("eventstore/sqlite: encode metadata of event %s: %w", ev.ID, err)
		}
		out[i] = string(md)
	}
	return out, nil
}

// applyAll decides every request in order, then writes all the accepted events.
// A *rowRefusedError means the database refused a row and the transaction must be rolled back.
func (w *batchWriter) applyAll(ctx context.Context, batch []eventstore.AppendRequest) ([]eventstore.AppendOutcome, error) {
	w.trustV7 = true
	if err := w.readVersions(ctx, batch); err != nil {
		return nil, err
	}
	outcomes := make([]eventstore.AppendOutcome, len(batch))
	for i, req := range batch {
		out, current, done, err := w.decide(ctx, req)
		switch {
		case err != nil:
			return nil, err
		case done:
			outcomes[i] = out
			continue
		}
		md, err := encodeMetadata(req)
		if err != nil {
			outcomes[i].Err = err
			continue
		}
		outcomes[i].Position = w.plan(req, current, md)
	}
	if err := w.insert(ctx, w.rows); err != nil {
		return nil, err
	}
	return outcomes, nil
}

// insert writes rows with one prepared single-row INSERT (the statement is parsed once per writer
// connection; a multi-row INSERT would be parsed anew for every batch size, which costs more than it
// saves).
func (w *batchWriter) insert(ctx context.Context, rows []row) error {
	for _, r := range rows {
		if _, err := w.ins.ExecContext(ctx, r.pos, r.ev.ID.String(), r.stream, r.version, r.ev.Type, r.ev.SchemaVersion, string(r.ev.Data), r.metadata); err != nil {
			if isConstraint(err) {
				return &rowRefusedError{err: err}
			}
			return fmt.Errorf("eventstore/sqlite: insert into %q: %w", r.stream, err)
		}
	}
	return nil
}

// applyOneByOne is the way back when the database refused a row of applyAll: each request is
// decided the same way and written in its own savepoint, so that a refused one leaves nothing and the
// others commit.
func (w *batchWriter) applyOneByOne(ctx context.Context, batch []eventstore.AppendRequest) ([]eventstore.AppendOutcome, error) {
	outcomes := make([]eventstore.AppendOutcome, len(batch))
	for i, req := range batch {
		out, current, done, err := w.decide(ctx, req)
		switch {
		case err != nil:
			return nil, err
		case done:
			outcomes[i] = out
			continue
		}
		md, err := encodeMetadata(req)
		if err != nil {
			outcomes[i].Err = err
			continue
		}
		if outcomes[i], err = w.applySaved(ctx, req, current, md); err != nil {
			return nil, err
		}
	}
	return outcomes, nil
}

// applySaved writes one request inside a savepoint. A refusal that concerns this request alone comes
// back in the outcome; an error means the transaction is unusable and the batch must fail.
func (w *batchWriter) applySaved(ctx context.Context, req eventstore.AppendRequest, current int64, md []string) (eventstore.AppendOutcome, error) {
	if _, err := w.conn.ExecContext(ctx, `SAVEPOINT append_request`); err != nil {
		return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: savepoint: %w", err)
	}
	rowsBefore, lastBefore := len(w.rows), w.last
	pos := w.plan(req, current, md)
	insertErr := w.insert(ctx, w.rows[rowsBefore:])
	if insertErr == nil {
		if _, err := w.conn.ExecContext(ctx, `RELEASE append_request`); err != nil {
			return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: release savepoint: %w", err)
		}
		return eventstore.AppendOutcome{Position: pos}, nil
	}
	refused, ok := errors.AsType[*rowRefusedError](insertErr)
	if !ok {
		return eventstore.AppendOutcome{}, insertErr
	}
	// Undo this request's rows, in the database and in the plan, and keep the rest of the batch. If
	// the savepoint is gone, SQLite rolled back the whole transaction (a trigger's RAISE(ROLLBACK),
	// say): the batch fails.
	if _, err := w.conn.ExecContext(ctx, `ROLLBACK TO append_request`); err != nil {
		return eventstore.AppendOutcome{}, fmt.Errorf("%w (and the transaction is lost: %v)", insertErr, err)
	}
	if _, err := w.conn.ExecContext(ctx, `RELEASE append_request`); err != nil {
		return eventstore.AppendOutcome{}, fmt.Errorf("eventstore/sqlite: release savepoint: %w", err)
	}
	for _, r := range w.rows[rowsBefore:] {
		delete(w.ids, r.ev.ID)
	}
	w.rows, w.last, w.versions[req.Stream] = w.rows[:rowsBefore], lastBefore, current
	// A reused id that is stored but was not looked up (the append's expected version matched) is
	// refused as such.
	if err := w.lookUp(ctx, req.Events); err != nil {
		return eventstore.AppendOutcome{}, err
	}
	if _, refusal := eventstore.IdempotentRetry(req.Stream, req.Expected, req.Events, func(id uuid.UUID) (eventstore.StoredAt, bool) {
		st, ok := w.ids[id]
		return st.at, ok
	}); refusal != nil {
		return eventstore.AppendOutcome{Err: refusal}, nil
	}
	return eventstore.AppendOutcome{Err: fmt.Errorf("eventstore/sqlite: append to %q: %w", req.Stream, refused.err)}, nil
}

// envelopes returns the events of rows, in commit order. With copyData each gets its own copy of its
// body (for OnCommit: the appenders own the slices they passed in).
func envelopes(rows []row, copyData bool) []eventstore.Envelope {
	if len(rows) == 0 {
		return nil
	}
	out := make([]eventstore.Envelope, len(rows))
	for i, r := range rows {
		data := r.ev.Data
		if copyData {
			data = append(json.RawMessage(nil), data...)
		}
		out[i] = eventstore.Envelope{
			ID: r.ev.ID, Stream: r.stream, Version: r.version, Position: position(r.pos),
			Type: r.ev.Type, SchemaVersion: r.ev.SchemaVersion, Data: data, Metadata: r.ev.Metadata,
		}
	}
	return out
}

// isConstraint reports whether err is SQLite refusing a row (a UNIQUE, CHECK or NOT NULL constraint,
// or a trigger's RAISE), as opposed to the database failing.
func isConstraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT
}

// Stats returns the group commits made so far and the events they carried.
func (s *Store) Stats() eventstore.BatchStats { return s.batcher.Stats() }
