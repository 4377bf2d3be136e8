package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/workbench/workbench/eventstore"
)

// The statements of one batch transaction. A batch whose requests all name their stream's version,
// each on a stream of its own, is first tried in one round trip (fastInsertSQL: begin, insert,
// notify, commit). Otherwise, or when that is refused, two round trips: the first locks the batch's
// streams and reads what the decisions need, the second writes, notifies and commits.
const (
	// lockStreamsSQL takes a transaction-scoped advisory lock per distinct stream, in key order, so two
	// replicas locking overlapping sets cannot deadlock (PostgreSQL would detect it, and the batch would
	// be retried, but ordered locking avoids the cost). It uses the two-key form with a fixed first key
	// (0x57424556, "WBEV"), so it never meets locks taken with the one-key form (the migrations lock).
	// Two streams whose names hash alike only wait for each other needlessly.
	lockStreamsSQL = `SELECT count(pg_advisory_xact_lock(1463960918, k)) FROM (
	SELECT DISTINCT hashtext(s) AS k FROM unnest($1::text[]) AS s ORDER BY k) AS keys`

	// headsSQL reads each stream's last version with one backward index probe per stream. It runs as
	// its own statement after the locks are held, so in READ COMMITTED it sees every commit made by
	// whoever held a lock before.
	headsSQL = `SELECT s, COALESCE((SELECT version FROM events WHERE stream = s ORDER BY version DESC LIMIT 1), 0)
FROM unnest($1::text[]) AS s`

	// knownIDsSQL finds the batch's event ids already stored, for idempotent retries.
	knownIDsSQL = `SELECT id, stream, version, xid, position FROM events WHERE id = ANY($1::uuid[])`

	// insertSQL writes every accepted event in one statement. Rows are inserted, and their positions
	// drawn from the sequence, in array order.
	insertSQL = `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::bytea[], $7::json[])
RETURNING id, xid, position`

	// fastInsertSQL is the one-round-trip form of a batch whose every request names its stream's
	// version (NoStream or Exact) on a stream no other request of the batch names: each event's
	// version follows from the expected one, so nothing is read first. The UNIQUE (stream, version)
	// and (id) indexes refuse an append to a stream that is further on, or a reused id; the first
	// row of each request is written only if its stream has the version before it (a NULL version
	// otherwise, which NOT NULL refuses), so a stream that is not as far as expected is refused too.
	// Any refusal fails the statement and the batch is decided again the two-round-trip way.
	//
	// The version check is a scalar subquery (at most one row: (stream, version) is unique), not
	// EXISTS: PostgreSQL may plan an EXISTS in an expression as a hashed subplan, and on a table not
	// yet analyzed it did: every batch read the whole events table to build the hash (seen with
	// auto_explain; a 64-event batch took 15 ms on a log of 2,500 events and grew with the log). A
	// scalar subquery is never hashed, so each first row costs one probe of the (stream, version)
	// index, whatever the log's size or statistics.
	fastInsertSQL = `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
SELECT u.id, u.stream,
	CASE WHEN u.version = 1 OR NOT u.first OR (SELECT true FROM events e WHERE e.stream = u.stream AND e.version = u.version - 1)
	THEN u.version END,
	u.type, u.sv, u.data, u.md
FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::bytea[], $7::json[], $8::bool[])
	WITH ORDINALITY AS u(id, stream, version, type, sv, data, md, first, n)
ORDER BY u.n
RETURNING id, xid, position`

	notifySQL = `SELECT pg_notify($1, '')`

	// insertOneSQL writes a single event whose version needs no check: the first of a new stream, or
	// one whose stream is known to have reached the version before it (see Store.heads), so the
	// UNIQUE (stream, version) index alone refuses a stream that moved on. Planning a one-row VALUES
	// insert costs PostgreSQL a fraction of the array forms, which is most of a lone append's time.
	insertOneSQL = `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
VALUES ($1, $2, $3, $4, $5, $6, $7)
RETURNING id, xid, position`

	// beforeSQL, run in a batch's transaction after its insert, tells where the log stands before the
	// batch: blocked says a transaction of this database whose xid is below the batch's own may still
	// be running (it may yet write events that order before the batch), and (xid, position) is the
	// last event ordered before the batch (NULL for an empty log). A transaction below the batch's xid
	// may be running if the statement's snapshot lists it, or if its xid is at or past the snapshot's
	// xmax (the newest completed xid plus one: every xid from there up to the batch's own has not
	// completed). Those that pg_stat_activity places in another database are left out, as readAllSQL
	// does. When blocked is false, every transaction below the batch's has ended and all of their
	// events are visible to this statement, so that event is exactly the one a reader meets before the
	// batch's first.
	beforeSQL = `WITH s AS (SELECT pg_current_snapshot() AS snap, pg_current_xact_id() AS cur)
SELECT EXISTS (
	SELECT 1 FROM (
		SELECT x FROM s, pg_snapshot_xip(s.snap) AS x WHERE x < s.cur
		UNION ALL
		SELECT g::text::xid8 FROM s, generate_series(pg_snapshot_xmax(s.snap)::text::bigint, s.cur::text::bigint - 1) AS g
	) AS r(x)
	WHERE r.x::text::bigint % 4294967296 NOT IN (
		SELECT backend_xid::text::bigint FROM pg_stat_activity
		WHERE backend_xid IS NOT NULL
		  AND datid <> (SELECT oid FROM pg_database WHERE datname = current_database()))),
	b.xid, b.position
FROM s LEFT JOIN LATERAL (SELECT xid, position FROM events WHERE xid < s.cur ORDER BY xid DESC, position DESC LIMIT 1) AS b ON true`
)

// notifying wraps an INSERT … RETURNING id, xid, position (whose parameters run from $1 to $n) into
// one statement that also notifies NotifyChannel ($n+1): sent alone, outside BEGIN and COMMIT, it is
// its own transaction, so a batch whose rows need no reading first costs one statement and one round
// trip, as a bare single-row insert does. The notification CTE is volatile, so PostgreSQL runs it
// exactly once (a CTE that is not side-effect free is never inlined), and it is delivered at commit.
func notifying(insert string, n int) string {
	return fmt.Sprintf("WITH ins AS (%s), woke AS (SELECT pg_notify($%d, '')) SELECT ins.id, ins.xid, ins.position FROM ins, woke", insert, n+1)
}

var (
	notifyingInsertOneSQL = notifying(insertOneSQL, 7)
	notifyingInsertSQL    = notifying(insertSQL, 7)
	notifyingFastSQL      = notifying(fastInsertSQL, 8)
)

// errFastRefused says the one-round-trip insert was refused (see fastInsertSQL): the batch is to be
// decided again with the streams locked and read.
var errFastRefused = errors.New("postgres: append: the optimistic insert was refused")

// maxBatchAttempts bounds how often one batch is retried after a deadlock, a serialization failure or
// a unique violation caused by a writer that raced past the locks.
const maxBatchAttempts = 4

// commit is the Batcher's CommitFunc.
func (s *Store) commit(ctx context.Context, batch []eventstore.AppendRequest) ([]eventstore.AppendOutcome, error) {
	fast, ended := true, 0
	for attempt := 1; ; attempt++ {
		outcomes, envs, err := s.commitOnce(ctx, batch, fast)
		if errors.Is(err, errFastRefused) {
			fast = false
			attempt--
			continue
		}
		if endedConn(err) && ended < maxEndedConns {
			ended++
			attempt--
			continue
		}
		fast = false
		if err == nil {
			s.noteHeads(envs)
			if len(envs) > 0 {
				if s.onCommit != nil {
					s.onCommit(envs)
				}
				s.wake.Broadcast()
			}
			return outcomes, nil
		}
		if attempt >= maxBatchAttempts || !retryable(err) {
			return nil, err
		}
		s.log.Warn("postgres: append batch retried", "attempt", attempt, "requests", len(batch), "err", err)
		time.Sleep(time.Duration(attempt) * 5 * time.Millisecond)
	}
}

// unrun is the error answered to a batch's first statement (its pipelined BEGIN, or the one
// statement of insertAlone before it returned any row): the server ran nothing of the batch.
type unrun struct {
	step string
	err  error
}

func (e unrun) Error() string { return e.step + ": " + e.err.Error() }
func (e unrun) Unwrap() error { return e.err }

// endedConn reports whether a batch failed on a pooled connection the server had ended (a restart, a
// failover): the first answer to the batch is the server's FATAL (SQLSTATE class 08 or 57P), which
// it sends before anything of a statement it ran, so nothing of the batch ran; the pool has dropped
// the connection.
func endedConn(err error) bool {
	var pgErr *pgconn.PgError
	var u unrun
	return errors.As(err, &u) && errors.As(err, &pgErr) && (strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P"))
}

// maxEndedConns bounds how many ended pooled connections one batch passes over (see endedConn).
const maxEndedConns = 16

// retryable reports whether a failed batch left nothing behind and may succeed when decided again.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "40P01", "40001", "23505": // deadlock, serialization failure, unique violation
			return true
		}
		return false
	}
	return pgconn.SafeToRetry(err)
}

// stored is where an event id already lives: committed (row < 0) or written earlier in this batch.
type stored struct {
	stream  string
	version int64
	pos     eventstore.Position
	row     int
}

// planned is the set of rows one batch will insert, as parallel arrays for unnest.
type planned struct {
	events   []*eventstore.EventData
	ids      []uuid.UUID
	streams  []string
	versions []int64
	types    []string
	schemas  []int32
	data     [][]byte
	metadata [][]byte
	first    []bool // the first event of its request (fastInsertSQL only)
}

func (p *planned) add(stream string, version int64, ev *eventstore.EventData, meta []byte) int {
	p.events = append(p.events, ev)
	p.ids = append(p.ids, ev.ID)
	p.streams = append(p.streams, stream)
	p.versions = append(p.versions, version)
	p.types = append(p.types, ev.Type)
	p.schemas = append(p.schemas, int32(ev.SchemaVersion))
	p.data = append(p.data, ev.Data)
	p.metadata = append(p.metadata, meta)
	return len(p.ids) - 1
}

// commitOnce runs one batch transaction: in one round trip when tryFast and planFast can take the
// batch (commitFast), otherwise in two: readHeads (begin, lock the streams, read their
// versions and the batch's known event ids), then, once plan has decided every request against those,
// insertAndCommit (insert, notify, commit). It returns the outcomes and, when anything was written, the
// envelopes in global order.
func (s *Store) commitOnce(ctx context.Context, batch []eventstore.AppendRequest, tryFast bool) ([]eventstore.AppendOutcome, []eventstore.Envelope, error) {
	outcomes, metas, streams, ids := precheck(batch)
	if len(streams) == 0 {
		return outcomes, nil, nil
	}
	if tryFast {
		if rows, lastRow, checks, ok := planFast(batch, outcomes, metas, len(streams), s.heads); ok {
			mode := insertPlain
			if checks {
				mode = insertChecked
			}
			return s.commitFast(ctx, batch, outcomes, rows, lastRow, mode)
		}
	}

	bc, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: append: acquire connection: %w", err)
	}
	defer bc.release()
	conn := bc.conn
	inTx := true
	defer func() {
		if inTx {
			abort(conn)
		}
	}()

	heads, known, err := readHeads(ctx, conn, streams, ids)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: append: %w", err)
	}
	rows, lastRow := plan(batch, outcomes, metas, heads, known)
	if len(rows.ids) == 0 {
		inTx = false
		if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
			conn.Close(context.Background()) //nolint:errcheck // the pool discards it either way
		}
		s.noteHeadsRead(heads)
		return outcomes, nil, nil
	}
	positions, err := s.insertAndCommit(ctx, bc, &rows, insertLocked)
	if err != nil {
		return nil, nil, err
	}
	inTx = false
	// Read under the streams' locks, then moved on by what the batch wrote: committed facts now.
	s.noteHeadsRead(heads)

	for i := range batch {
		if lastRow[i] >= 0 {
			outcomes[i].Position = positions[lastRow[i]]
		}
	}
	return outcomes, envelopes(&rows, positions), nil
}

// planFast plans a batch for the one-round-trip insert when it can take it: every request that passed
// precheck names a version (NoStream or Exact) and a stream of its own in the batch (streams is how
// many distinct streams they name). checks reports whether a row needs fastInsertSQL's check that its
// stream has the version before it: not the first event of a stream, nor one whose stream heads (the
// versions this store has seen committed) already has at that version or beyond; without any such
// row the plain insert is enough, since a stream that moved on meets the UNIQUE (stream, version)
// index.
func planFast(batch []eventstore.AppendRequest, outcomes []eventstore.AppendOutcome, metas [][][]byte, streams int, heads map[string]int64) (rows planned, lastRow []int, checks, ok bool) {
	lastRow = make([]int, len(batch))
	n := 0
	for i, req := range batch {
		lastRow[i] = -1
		if outcomes[i].Err != nil {
			continue
		}
		if req.Expected == eventstore.Any {
			return planned{}, nil, false, false
		}
		n++
		if v := int64(req.Expected); v > 0 {
			if h, seen := heads[req.Stream]; !seen || h < v {
				checks = true
			}
		}
		for j := range req.Events {
			lastRow[i] = rows.add(req.Stream, int64(req.Expected)+int64(j)+1, &req.Events[j], metas[i][j])
			rows.first = append(rows.first, j == 0)
		}
	}
	return rows, lastRow, checks, n == streams
}

// maxHeads bounds Store.heads; past it the map starts again empty.
const maxHeads = 1 << 16

// noteHeads records the versions a committed batch wrote (one commit at a time: the batcher's turn).
func (s *Store) noteHeads(envs []eventstore.Envelope) {
	for _, env := range envs {
		s.noteHead(env.Stream, env.Version)
	}
}

// noteHeadsRead records stream versions read under the streams' locks (one commit at a time: the
// batcher's turn).
func (s *Store) noteHeadsRead(heads map[string]int64) {
	for stream, v := range heads {
		if v > 0 {
			s.noteHead(stream, v)
		}
	}
}

func (s *Store) noteHead(stream string, v int64) {
	if s.heads == nil || len(s.heads) >= maxHeads {
		s.heads = make(map[string]int64, 1024)
	}
	if v > s.heads[stream] {
		s.heads[stream] = v
	}
}

// commitFast writes a batch planned by planFast in one round trip: one statement that inserts and
// notifies in a transaction of its own (or, with an in-transaction hook, begin and insert, the hook,
// then notify and commit).
// errFastRefused means the insert was refused and nothing was written.
func (s *Store) commitFast(ctx context.Context, batch []eventstore.AppendRequest, outcomes []eventstore.AppendOutcome, rows planned, lastRow []int, mode insertMode) ([]eventstore.AppendOutcome, []eventstore.Envelope, error) {
	bc, err := s.acquire(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("postgres: append: acquire connection: %w", err)
	}
	defer bc.release()
	positions, err := s.insertAndCommit(ctx, bc, &rows, mode)
	if err != nil {
		abort(bc.conn)
		s.slowAfterFast.Add(1)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "23505" || pgErr.Code == "23502") {
			return nil, nil, errFastRefused
		}
		return nil, nil, err
	}
	s.fast.Add(1)
	for i := range batch {
		if lastRow[i] >= 0 {
			outcomes[i].Position = positions[lastRow[i]]
		}
	}
	return outcomes, envelopes(&rows, positions), nil
}

// precheck makes, per request, the checks PostgreSQL would make for the whole statement, so that one bad
// request cannot fail the others: text columns refuse NUL bytes and invalid UTF-8, and metadata must
// encode. It returns the outcomes with those errors set, each event's encoded metadata, and the sorted
// streams and the event ids of the requests that passed.
func precheck(batch []eventstore.AppendRequest) (outcomes []eventstore.AppendOutcome, metas [][][]byte, streams []string, ids []uuid.UUID) {
	outcomes = make([]eventstore.AppendOutcome, len(batch))
	metas = make([][][]byte, len(batch))
	for i, req := range batch {
		if err := checkText(req); err != nil {
			outcomes[i].Err = err
			continue
		}
		metas[i] = make([][]byte, len(req.Events))
		for j := range req.Events {
			m, err := json.Marshal(req.Events[j].Metadata)
			if err != nil {
				outcomes[i].Err = fmt.Errorf("postgres: event %d (%s) metadata: %w", j, req.Events[j].Type, err)
				break
			}
			metas[i][j] = m
		}
		if outcomes[i].Err != nil {
			continue
		}
		streams = append(streams, req.Stream)
		for _, ev := range req.Events {
			ids = append(ids, ev.ID)
		}
	}
	slices.Sort(streams)
	return outcomes, metas, slices.Compact(streams), ids
}

// readHeads is round trip 1: begin, lock the streams, read their versions and where the batch's event ids
// already live.
func readHeads(ctx context.Context, conn *pgx.Conn, streams []string, ids []uuid.UUID) (map[string]int64, map[uuid.UUID]stored, error) {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	b.Queue(lockStreamsSQL, streams)
	b.Queue(headsSQL, streams)
	b.Queue(knownIDsSQL, ids)
	heads := make(map[string]int64, len(streams))
	known := make(map[uuid.UUID]stored, 0)
	br := conn.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, nil, unrun{"begin", err}
	}
	if _, err := br.Exec(); err != nil {
		return nil, nil, fmt.Errorf("lock streams: %w", err)
	}
	rows, err := br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("read stream versions: %w", err)
	}
	var stream string
	var head int64
	if _, err := pgx.ForEachRow(rows, []any{&stream, &head}, func() error {
		heads[stream] = head
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("read stream versions: %w", err)
	}
	rows, err = br.Query()
	if err != nil {
		return nil, nil, fmt.Errorf("read known event ids: %w", err)
	}
	var (
		id       uuid.UUID
		version  int64
		xid      uint64
		position int64
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &stream, &version, &xid, &position}, func() error {
		known[id] = stored{stream: stream, version: version, pos: eventstore.Position{Commit: xid, Prepare: uint64(position)}, row: -1}
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("read known event ids: %w", err)
	}
	if err := br.Close(); err != nil {
		return nil, nil, err
	}
	return heads, known, nil
}

// plan decides every request in order, against the versions earlier requests of this batch leave, and
// sets the outcome of those it refuses or finds already stored. It returns the rows to insert and, per
// request, the row of its last event (-1 for none).
func plan(batch []eventstore.AppendRequest, outcomes []eventstore.AppendOutcome, metas [][][]byte, heads map[string]int64, known map[uuid.UUID]stored) (planned, []int) {
	var rows planned
	lastRow := make([]int, len(batch))
	for i, req := range batch {
		lastRow[i] = -1
		if outcomes[i].Err != nil {
			continue
		}
		head := heads[req.Stream]
		switch done, err := eventstore.IdempotentRetry(req.Stream, req.Expected, req.Events, func(id uuid.UUID) (eventstore.StoredAt, bool) {
			at, ok := known[id]
			return eventstore.StoredAt{Stream: at.stream, Version: at.version}, ok
		}); {
		case err != nil:
			outcomes[i].Err = err
			continue
		case done:
			if prior := known[req.Events[len(req.Events)-1].ID]; prior.row >= 0 {
				lastRow[i] = prior.row
			} else {
				outcomes[i].Position = prior.pos
			}
			continue
		}
		if !req.Expected.Matches(head) {
			outcomes[i].Err = &eventstore.ConflictError{Stream: req.Stream, Expected: req.Expected, Actual: head}
			continue
		}
		for j := range req.Events {
			ev := &req.Events[j]
			r := rows.add(req.Stream, head+int64(j)+1, ev, metas[i][j])
			known[ev.ID] = stored{stream: req.Stream, version: head + int64(j) + 1, row: r}
			lastRow[i] = r
		}
		heads[req.Stream] = head + int64(len(req.Events))
	}
	return rows, lastRow
}

// insertMode is how insertAndCommit writes a batch's rows.
type insertMode int

const (
	// insertLocked: inside the transaction readHeads began, the rows decided against the versions it
	// read (insertSQL).
	insertLocked insertMode = iota
	// insertChecked: a transaction of its own, each stream's version checked by the statement
	// (fastInsertSQL).
	insertChecked
	// insertPlain: a transaction of its own, no row needing a check (insertOneSQL, insertSQL).
	insertPlain
)

// insertStatement returns the insert for rows in mode and its arguments.
func insertStatement(rows *planned, mode insertMode) (string, []any) {
	switch {
	case mode == insertChecked:
		return fastInsertSQL, []any{rows.ids, rows.streams, rows.versions, rows.types, rows.schemas, rows.data, rows.metadata, rows.first}
	case mode == insertPlain && len(rows.ids) == 1:
		return insertOneSQL, []any{rows.ids[0], rows.streams[0], rows.versions[0], rows.types[0], rows.schemas[0], rows.data[0], rows.metadata[0]}
	}
	return insertSQL, []any{rows.ids, rows.streams, rows.versions, rows.types, rows.schemas, rows.data, rows.metadata}
}

// notifyingStatement is insertStatement's statement wrapped by notifying, with its arguments.
func notifyingStatement(rows *planned, mode insertMode) (string, []any) {
	sql, args := insertStatement(rows, mode)
	switch sql {
	case fastInsertSQL:
		sql = notifyingFastSQL
	case insertOneSQL:
		sql = notifyingInsertOneSQL
	default:
		sql = notifyingInsertSQL
	}
	return sql, append(args, NotifyChannel)
}

// insertAndCommit writes the planned rows, notifies and commits, and returns each row's position.
// When the connection fails while the commit is on its way it asks the server what became of the
// transaction; an error means the transaction is not known to have committed (the caller aborts it).
//
// insertLocked is round trip 2 of a batch, in the transaction readHeads began: insert, notify, commit
// in one pipeline. insertChecked and insertPlain are the whole batch in one statement of its own
// (notifying), which PostgreSQL commits as soon as it has run. The notification is left out while no
// other store listens (notifyWanted).
//
// When an in-transaction hook is installed (SetInTransaction), the insert (after BEGIN, unless
// locked) and the notify-and-commit go in two round trips, and between them the hook writes through
// bc.sql in the same transaction. The insert's round trip also asks where the log stood before the
// batch (beforeSQL), which the hook is given; when that cannot be told (a transaction that may still
// write events is running below this one), the hook is not called.
func (s *Store) insertAndCommit(ctx context.Context, bc *batchConn, rows *planned, mode insertMode) ([]eventstore.Position, error) {
	conn := bc.conn
	hook := s.inTx.Load()
	if bc.sql == nil {
		hook = nil
	}
	if hook == nil && mode != insertLocked {
		return s.insertAlone(ctx, conn, rows, mode)
	}
	b := &pgx.Batch{}
	if mode != insertLocked {
		b.Queue("BEGIN")
	}
	sql, args := insertStatement(rows, mode)
	b.Queue(sql, args...)
	notify := s.notifyWanted()
	if hook != nil {
		b.Queue(beforeSQL)
	} else {
		if notify {
			b.Queue(notifySQL, NotifyChannel)
		}
		b.Queue("COMMIT")
	}
	positions := make([]eventstore.Position, len(rows.ids))
	var (
		xid         uint64
		before      eventstore.Position
		beforeKnown bool
	)
	br := conn.SendBatch(ctx, b)
	err := func() error {
		if mode != insertLocked {
			if _, err := br.Exec(); err != nil {
				return unrun{"begin", err}
			}
		}
		rs, err := br.Query()
		if err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		if xid, err = scanInserted(rs, rows, positions); err != nil {
			return fmt.Errorf("insert: %w", err)
		}
		if hook != nil {
			var blocked bool
			var bx *uint64
			var bp *int64
			if err := br.QueryRow().Scan(&blocked, &bx, &bp); err != nil {
				return fmt.Errorf("read the log's end before the batch: %w", err)
			}
			beforeKnown = !blocked
			if bx != nil && bp != nil {
				before = eventstore.Position{Commit: *bx, Prepare: uint64(*bp)}
			}
			return br.Close()
		}
		if notify {
			if _, err := br.Exec(); err != nil {
				return fmt.Errorf("notify: %w", err)
			}
		}
		return nil
	}()
	if err != nil {
		br.Close()
		return nil, fmt.Errorf("postgres: append: %w", err)
	}
	var commitErr error
	if hook != nil {
		var after func(committed bool)
		if beforeKnown {
			after = (*hook)(ctx, bc.sql, before, envelopes(rows, positions))
		}
		committed := false
		if after != nil {
			defer func() { after(committed) }()
		}
		if conn.PgConn().TxStatus() != 'T' {
			// The hook must leave the transaction open and usable; it did not, so nothing committed.
			return nil, errors.New("postgres: append: the in-transaction hook ended the transaction")
		}
		b = &pgx.Batch{}
		if notify {
			b.Queue(notifySQL, NotifyChannel)
		}
		b.Queue("COMMIT")
		br = conn.SendBatch(ctx, b)
		if notify {
			if _, err := br.Exec(); err != nil {
				br.Close()
				return nil, fmt.Errorf("postgres: append: notify: %w", err)
			}
		}
		commitErr = s.finishCommit(br, xid)
		committed = commitErr == nil
		if commitErr != nil {
			return nil, commitErr
		}
		return positions, nil
	}
	if commitErr = s.finishCommit(br, xid); commitErr != nil {
		return nil, commitErr
	}
	return positions, nil
}

// insertAlone writes the rows with one statement, its own transaction, notifying when anyone else
// listens (notifyWanted). PostgreSQL sends the
// inserted rows before it commits (at the end of the statement's round trip), so when the rows came
// back but the commit's answer did not, the transaction's xid is known and asked after, as
// finishCommit does.
func (s *Store) insertAlone(ctx context.Context, conn *pgx.Conn, rows *planned, mode insertMode) ([]eventstore.Position, error) {
	sql, args := insertStatement(rows, mode)
	if s.notifyWanted() {
		sql, args = notifyingStatement(rows, mode)
	}
	positions := make([]eventstore.Position, len(rows.ids))
	rs, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: append: %w", unrun{"insert", err})
	}
	xid, err := scanInserted(rs, rows, positions)
	if err == nil {
		return positions, nil
	}
	var pgErr *pgconn.PgError
	if xid == 0 {
		return nil, fmt.Errorf("postgres: append: %w", unrun{"insert", err})
	}
	if errors.As(err, &pgErr) {
		return nil, fmt.Errorf("postgres: append: insert: %w", err)
	}
	committed, rerr := s.resolveInDoubt(xid)
	if rerr != nil {
		return nil, fmt.Errorf("postgres: append: commit: %w (outcome unknown: %v)", err, rerr)
	}
	if !committed {
		return nil, fmt.Errorf("postgres: append: commit: %w", err)
	}
	s.log.Warn("postgres: commit reply lost, transaction found committed", "xid", xid)
	return positions, nil
}

// scanInserted reads the (id, xid, position) rows an insert returned into positions, by each row's
// id, closing rs. It returns the batch's xid (0 when no row came back) and an error unless every
// row came back.
func scanInserted(rs pgx.Rows, rows *planned, positions []eventstore.Position) (uint64, error) {
	index := make(map[uuid.UUID]int, len(rows.ids))
	for r, id := range rows.ids {
		index[id] = r
	}
	var (
		id       uuid.UUID
		xid      uint64
		position int64
	)
	n := 0
	_, err := pgx.ForEachRow(rs, []any{&id, &xid, &position}, func() error {
		r, ok := index[id]
		if !ok {
			return fmt.Errorf("insert returned unknown id %s", id)
		}
		positions[r] = eventstore.Position{Commit: xid, Prepare: uint64(position)}
		n++
		return nil
	})
	if err != nil {
		return xid, err
	}
	if n != len(rows.ids) {
		return xid, fmt.Errorf("%d rows returned, want %d", n, len(rows.ids))
	}
	return xid, nil
}

// finishCommit reads COMMIT's answer, the last of br's results, and closes br. When the connection
// failed while COMMIT was on its way it asks the server what became of transaction xid; an error means
// the transaction is not known to have committed.
func (s *Store) finishCommit(br pgx.BatchResults, xid uint64) error {
	_, commitErr := br.Exec()
	if closeErr := br.Close(); commitErr == nil {
		commitErr = closeErr
	}
	if commitErr == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(commitErr, &pgErr) {
		return fmt.Errorf("postgres: append: commit: %w", commitErr)
	}
	// The connection failed while COMMIT was on its way: the outcome is in doubt. Ask the server
	// what became of the transaction (pg_xact_status exists for exactly this).
	committed, err := s.resolveInDoubt(xid)
	if err != nil {
		return fmt.Errorf("postgres: append: commit: %w (outcome unknown: %v)", commitErr, err)
	}
	if !committed {
		return fmt.Errorf("postgres: append: commit: %w", commitErr)
	}
	s.log.Warn("postgres: commit reply lost, transaction found committed", "xid", xid)
	return nil
}

// envelopes builds the envelopes of the committed rows, in global order.
func envelopes(rows *planned, positions []eventstore.Position) []eventstore.Envelope {
	envs := make([]eventstore.Envelope, len(rows.ids))
	for r := range rows.ids {
		ev := rows.events[r]
		envs[r] = eventstore.Envelope{
			ID: ev.ID, Stream: rows.streams[r], Version: rows.versions[r], Position: positions[r],
			Type: ev.Type, SchemaVersion: ev.SchemaVersion, Data: ev.Data, Metadata: ev.Metadata,
		}
	}
	slices.SortFunc(envs, func(a, b eventstore.Envelope) int {
		switch {
		case a.Position.Less(b.Position):
			return -1
		case b.Position.Less(a.Position):
			return 1
		}
		return 0
	})
	return envs
}

// checkText refuses what PostgreSQL text columns cannot hold (NUL bytes, invalid UTF-8).
func checkText(req eventstore.AppendRequest) error {
	bad := func(s string) bool { return !utf8.ValidString(s) || strings.IndexByte(s, 0) >= 0 }
	if bad(req.Stream) {
		return fmt.Errorf("postgres: stream name %q is not valid UTF-8 text without NUL bytes", req.Stream)
	}
	for j, ev := range req.Events {
		if bad(ev.Type) {
			return fmt.Errorf("postgres: event %d type %q is not valid UTF-8 text without NUL bytes", j, ev.Type)
		}
	}
	return nil
}

// abort ends a transaction left open by an error. If ROLLBACK cannot be sent, the connection is closed
// and the pool discards it (which aborts the transaction on the server).
func abort(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn.IsClosed() || conn.PgConn().TxStatus() == 'I' {
		return
	}
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		conn.Close(ctx) //nolint:errcheck // the pool discards a closed connection
	}
}

// resolveInDoubt asks, on another connection, whether transaction xid committed.
func (s *Store) resolveInDoubt(xid uint64) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		var status *string
		err := s.pool.QueryRow(ctx, `SELECT pg_xact_status($1::xid8)`, xid).Scan(&status)
		if err != nil {
			return false, fmt.Errorf("pg_xact_status(%d): %w", xid, err)
		}
		switch {
		case status == nil:
			return false, fmt.Errorf("pg_xact_status(%d): transaction too old to tell", xid)
		case *status == "committed":
			return true, nil
		case *status == "aborted":
			return false, nil
		}
		// "in progress": the server has not yet noticed the lost connection.
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("pg_xact_status(%d): still in progress: %w", xid, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
