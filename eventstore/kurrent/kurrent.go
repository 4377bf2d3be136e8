package kurrent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"

	"github.com/workbench/workbench/eventstore"
)

// Options tune a Store; nil means defaults.
type Options struct {
	// StreamPrefix is put before every stream name the store writes and reads, and only streams that
	// carry it appear in ReadAll and Subscribe; envelopes show stream names without it. It lets several
	// Workbench installations, or test runs, share one server, which has a single $all. It must not
	// start with "$" (KurrentDB's system streams). Empty: every non-system stream on the server.
	StreamPrefix string
	// ReadPageSize is how many events one read of $all asks the server for (default 256). ReadAll
	// filters out system events and other prefixes client-side, so a page may yield fewer.
	ReadPageSize int
	// Logger receives the client's own log lines (Open only; default slog.Default()).
	Logger *slog.Logger
}

// Store is an eventstore.Store on KurrentDB (EventStoreDB). KurrentDB keeps the log: streams map one
// to one (behind Options.StreamPrefix), the global order is $all, and appends are durable when the
// server acknowledges them.
type Store struct {
	client *esdb.Client
	prefix string
	page   int

	mu     sync.Mutex
	closed bool
	done   chan struct{}  // closed by Close; ends subscriptions
	ops    sync.WaitGroup // appends and reads in flight, which Close waits for
}

var _ eventstore.Store = (*Store)(nil)

// New returns a store on client. The store owns client from then on: Close closes it.
func New(client *esdb.Client, opts *Options) *Store {
	s := &Store{client: client, page: 256, done: make(chan struct{})}
	if opts != nil {
		s.prefix = opts.StreamPrefix
		if opts.ReadPageSize > 0 {
			s.page = opts.ReadPageSize
		}
	}
	return s
}

// Open connects to the server a connection string names (esdb://, esdb+discover://, kurrentdb://,
// kurrentdb+discover://, with the client's usual query settings such as ?tls=false) and checks that it
// answers a read of $all, which the store needs (with authentication on, that takes an admin or ops
// user in the connection string).
func Open(ctx context.Context, connection string, opts *Options) (*Store, error) {
	if opts != nil && strings.HasPrefix(opts.StreamPrefix, "$") {
		return nil, fmt.Errorf("kurrent: stream prefix %q starts with \"$\", which KurrentDB reserves for system streams", opts.StreamPrefix)
	}
	u, err := clientURL(connection)
	if err != nil {
		return nil, err
	}
	cfg, err := esdb.ParseConnectionString(u)
	if err != nil {
		return nil, fmt.Errorf("kurrent: connection string %s: %w", redact(connection), redactError(u, err))
	}
	logger := slog.Default()
	if opts != nil && opts.Logger != nil {
		logger = opts.Logger
	}
	cfg.Logger = clientLogging(logger)
	client, err := esdb.NewClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("kurrent: client for %s: %w", redact(connection), redactError(u, err))
	}
	s := New(client, opts)
	if err := s.ping(ctx); err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("kurrent: connect to %s: %w", redact(connection), err)
	}
	return s, nil
}

// ping reads the last event of $all.
func (s *Store) ping(ctx context.Context) error {
	rs, err := s.client.ReadAll(ctx, esdb.ReadAllOptions{Direction: esdb.Backwards, From: esdb.End{}}, 1)
	if err != nil {
		return err
	}
	defer rs.Close()
	if _, err := rs.Recv(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// begin registers an operation, or says the store is closed.
func (s *Store) begin() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return eventstore.ErrClosed
	}
	s.ops.Add(1)
	return nil
}

// Close waits for the appends and reads in flight, ends subscriptions and closes the client. A second
// Close returns ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return eventstore.ErrClosed
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	s.ops.Wait()
	return s.client.Close()
}

// Append writes events to one stream. KurrentDB checks the expected version and de-duplicates by
// event id: a retry of an append that already succeeded, with the same ids and the same expected
// version, writes nothing and succeeds (with Any the server promises this only on a best-effort basis).
// It cannot refuse an id reused elsewhere with eventstore.ErrEventIDReused (see the package doc).
func (s *Store) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if err := s.begin(); err != nil {
		return eventstore.Position{}, err
	}
	defer s.ops.Done()
	if err := eventstore.ValidateAppend(stream, expected, events); err != nil {
		return eventstore.Position{}, err
	}
	rev, err := expectedRevision(expected)
	if err != nil {
		return eventstore.Position{}, err
	}
	data := make([]esdb.EventData, len(events))
	for i, ev := range events {
		if data[i], err = encodeEvent(ev); err != nil {
			return eventstore.Position{}, fmt.Errorf("kurrent: append to %q: %w", stream, err)
		}
	}
	name := s.prefix + stream
	res, err := s.client.AppendToStream(ctx, name, esdb.AppendToStreamOptions{ExpectedRevision: rev}, data...)
	if err != nil {
		if classify(err) == failWrongVersion {
			return eventstore.Position{}, s.conflict(ctx, name, stream, expected, err)
		}
		if ctx.Err() != nil {
			return eventstore.Position{}, fmt.Errorf("kurrent: append to %q: %w (%w)", stream, ctx.Err(), err)
		}
		return eventstore.Position{}, mapError("append to "+strconv.Quote(stream), err)
	}

	// The contract wants the last event's $all position. The server reports the position of the write
	// as a whole, which for several events need not be the last one's (the client's maintainers say it
	// is "90% of the time"), and an idempotent retry reports none. So the last event is read back: its
	// recorded position is exact. That costs a read per append; being right about positions is what
	// WaitFor and every reader rely on.
	pos := writePosition(res)
	last := lastRevision(expected, len(events), res.NextExpectedVersion)
	got, err := s.positionAt(ctx, name, last, events[len(events)-1])
	if err != nil && expected == eventstore.Any {
		// An idempotent retry with Any may report the stream's revision rather than the matched
		// events': look for the event near the end of the stream.
		got, err = s.findRecent(ctx, name, events[len(events)-1])
	}
	switch {
	case err == nil:
		return got, nil
	case !pos.IsZero():
		// A server too old to tell positions on stream reads: the write's own position is the best
		// there is.
		return pos, nil
	default:
		return eventstore.Position{}, fmt.Errorf("kurrent: append to %q: written, but its position could not be read back (a retry with the same event ids writes nothing again): %w", stream, err)
	}
}

// positionAt returns the $all position of the event at revision rev of stream name, checking it is ev.
func (s *Store) positionAt(ctx context.Context, name string, rev uint64, ev eventstore.EventData) (eventstore.Position, error) {
	rs, err := s.client.ReadStream(ctx, name, esdb.ReadStreamOptions{From: esdb.Revision(rev)}, 1)
	if err != nil {
		return eventstore.Position{}, err
	}
	defer rs.Close()
	got, err := rs.Recv()
	if err != nil {
		return eventstore.Position{}, fmt.Errorf("read revision %d: %w", rev, err)
	}
	rec := got.OriginalEvent()
	switch {
	case rec == nil || rec.EventID != ev.ID:
		return eventstore.Position{}, fmt.Errorf("revision %d does not hold event %s", rev, ev.ID)
	case positionOf(rec.Position).IsZero():
		return eventstore.Position{}, fmt.Errorf("the server does not report $all positions on stream reads")
	}
	return positionOf(rec.Position), nil
}

// recentWindow is how far back from a stream's end findRecent looks.
const recentWindow = 1024

// findRecent returns the $all position of ev among the last recentWindow events of stream name.
func (s *Store) findRecent(ctx context.Context, name string, ev eventstore.EventData) (eventstore.Position, error) {
	rs, err := s.client.ReadStream(ctx, name, esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, recentWindow)
	if err != nil {
		return eventstore.Position{}, err
	}
	defer rs.Close()
	for {
		got, err := rs.Recv()
		if errors.Is(err, io.EOF) {
			return eventstore.Position{}, fmt.Errorf("event %s is not among the last %d of the stream", ev.ID, recentWindow)
		}
		if err != nil {
			return eventstore.Position{}, err
		}
		if rec := got.OriginalEvent(); rec != nil && rec.EventID == ev.ID {
			if p := positionOf(rec.Position); !p.IsZero() {
				return p, nil
			}
			return eventstore.Position{}, fmt.Errorf("the server does not report $all positions on stream reads")
		}
	}
}

// conflict builds the ConflictError of a refused append. The stream's version comes from the error
// when the client kept it, from a read of the stream's last event otherwise, and is -1 when neither
// says.
func (s *Store) conflict(ctx context.Context, name, stream string, expected eventstore.ExpectedVersion, cause error) error {
	actual, ok := conflictActual(cause)
	if !ok {
		var err error
		if actual, err = s.version(ctx, name); err != nil {
			actual = -1
		}
	}
	return &eventstore.ConflictError{Stream: stream, Expected: expected, Actual: actual}
}

// version returns the version of the last event of stream name, 0 when there is none.
func (s *Store) version(ctx context.Context, name string) (int64, error) {
	rs, err := s.client.ReadStream(ctx, name, esdb.ReadStreamOptions{Direction: esdb.Backwards, From: esdb.End{}}, 1)
	if err != nil {
		if classify(err) == failNotFound {
			return 0, nil
		}
		return 0, err
	}
	defer rs.Close()
	got, err := rs.Recv()
	switch {
	case errors.Is(err, io.EOF) || classify(err) == failNotFound:
		return 0, nil
	case err != nil:
		return 0, err
	}
	return int64(got.OriginalEvent().EventNumber) + 1, nil
}

// Load reads one stream from fromVersion on. A stream that does not exist loads as nothing.
func (s *Store) Load(ctx context.Context, stream string, fromVersion int64) ([]eventstore.Envelope, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.ops.Done()
	if stream == "" {
		return nil, errors.New("eventstore: empty stream name")
	}
	var from esdb.StreamPosition = esdb.Start{}
	if fromVersion > 1 {
		from = esdb.Revision(uint64(fromVersion) - 1)
	}
	op := "load " + strconv.Quote(stream)
	rs, err := s.client.ReadStream(ctx, s.prefix+stream, esdb.ReadStreamOptions{From: from}, math.MaxInt64)
	if err != nil {
		if classify(err) == failNotFound {
			return nil, nil
		}
		return nil, readError(ctx, op, err)
	}
	defer rs.Close()
	var out []eventstore.Envelope
	for {
		got, err := rs.Recv()
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case classify(err) == failNotFound:
			return nil, nil
		case err != nil:
			return nil, readError(ctx, op, err)
		}
		env, err := decodeEvent(got.OriginalEvent(), s.prefix)
		if err != nil {
			return nil, err
		}
		out = append(out, env)
	}
}

// ReadAll returns up to limit events after from in $all, leaving out system events and streams
// without the store's prefix. $all only ever shows committed events, in commit order.
func (s *Store) ReadAll(ctx context.Context, from eventstore.Position, limit int) ([]eventstore.Envelope, error) {
	if err := s.begin(); err != nil {
		return nil, err
	}
	defer s.ops.Done()
	if limit <= 0 {
		return nil, nil
	}
	var out []eventstore.Envelope
	// KurrentDB reads $all from a position inclusively; ours is exclusive. So the cursor's own event
	// is skipped, unless the read starts at the very beginning.
	cursor, exclusive := from, !from.IsZero()
	for {
		count := max(limit-len(out)+1, s.page)
		rs, err := s.client.ReadAll(ctx, esdb.ReadAllOptions{From: fromPosition(cursor)}, uint64(count))
		if err != nil {
			return nil, readError(ctx, "read $all", err)
		}
		received := 0
		for {
			got, err := rs.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rs.Close()
				return nil, readError(ctx, "read $all", err)
			}
			received++
			rec := got.OriginalEvent()
			if rec == nil {
				continue
			}
			p := positionOf(rec.Position)
			if exclusive && !cursor.Less(p) {
				continue
			}
			cursor, exclusive = p, true
			if !s.owns(rec) {
				continue
			}
			env, err := decodeEvent(rec, s.prefix)
			if err != nil {
				rs.Close()
				return nil, err
			}
			out = append(out, env)
			if len(out) == limit {
				rs.Close()
				return out, nil
			}
		}
		rs.Close()
		if received < count {
			return out, nil // the end of $all
		}
	}
}

// owns reports whether a recorded event is one of this store's: not a system event, and in a stream
// with the store's prefix.
func (s *Store) owns(rec *esdb.RecordedEvent) bool {
	return !isSystem(rec.StreamID, rec.EventType) && strings.HasPrefix(rec.StreamID, s.prefix)
}

// Subscribe follows $all from `from` with a catch-up subscription: the server sends what is already
// there, then each event as it commits. The server filters out system events (or, with a prefix,
// other streams) before they cross the network.
func (s *Store) Subscribe(ctx context.Context, from eventstore.Position, fn func(eventstore.Envelope) error) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return eventstore.ErrClosed
	}
	subCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-subCtx.Done():
		}
	}()

	filter := esdb.ExcludeSystemEventsFilter()
	if s.prefix != "" {
		filter = &esdb.SubscriptionFilter{Type: esdb.StreamFilterType, Prefixes: []string{s.prefix}}
	}
	sub, err := s.client.SubscribeToAll(subCtx, esdb.SubscribeToAllOptions{From: fromPosition(from), Filter: filter})
	if err != nil {
		return s.subscriptionEnd(ctx, err)
	}
	defer sub.Close()
	// Subscriptions start after a position; the check is kept so that a server that started at it
	// would not deliver an event twice.
	last, exclusive := from, !from.IsZero()
	for {
		e := sub.Recv()
		switch {
		case e.SubscriptionDropped != nil:
			return s.subscriptionEnd(ctx, e.SubscriptionDropped.Error)
		case e.EventAppeared == nil:
			continue // caught up, fell behind, checkpoint: nothing to deliver
		}
		rec := e.EventAppeared.OriginalEvent()
		if rec == nil {
			continue
		}
		p := positionOf(rec.Position)
		if exclusive && !last.Less(p) {
			continue
		}
		last, exclusive = p, true
		if !s.owns(rec) {
			continue
		}
		env, err := decodeEvent(rec, s.prefix)
		if err != nil {
			return err
		}
		if err := fn(env); err != nil {
			return err
		}
	}
}

// subscriptionEnd says why a subscription ended: the caller's context, the store closing, or the
// server.
func (s *Store) subscriptionEnd(ctx context.Context, cause error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case <-s.done:
		return eventstore.ErrClosed
	default:
	}
	return mapError("subscribe to $all", cause)
}

// readError maps a failed read, naming the caller's context when it ended the read.
func readError(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("kurrent: %s: %w (%w)", op, ctx.Err(), err)
	}
	return mapError(op, err)
}
