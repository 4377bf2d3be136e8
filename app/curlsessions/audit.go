package curlsessions

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
)

// maxAuditBatch bounds how many queued records one append writes.
const maxAuditBatch = 256

// Run appends the queued outcome records (Proxied) until ctx ends, then appends whatever is still
// queued and returns. Main runs it as a background task that outlives the HTTP server's drain, so the
// records of the last requests are written before the store closes.
//
// Why a queue for outcomes: a request's RequestProxied record holds its status, sizes and duration,
// so it can only be written once the response has been relayed (a stream cannot be withheld the way
// an execute_tools result is). What must not be lost is already durable by then: the
// RequestForwarded record, appended before the request left (see the package documentation). The
// queue lets the handler return at once; a worker takes everything queued and appends each
// session's records in one append to the session's stream, so a burst of requests costs a few
// commits, not one each. A full queue makes the handler append its own record, so a backlog slows
// requests down instead of dropping records. A worker whose append fails keeps retrying the same
// records (same event ids, so a retry cannot record twice) until the log takes them or Run is told
// to stop: a database outage delays outcomes, it does not lose them.
func (s *Service) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for range s.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			batch := make([]curlsession.RequestProxied, 0, maxAuditBatch)
			for {
				select {
				case ev := <-s.queue:
					batch = s.collect(ctx, append(batch[:0], ev))
					s.appendRequests(ctx, batch, true)
				case <-ctx.Done():
					for {
						batch = s.drain(batch[:0])
						if len(batch) == 0 {
							return
						}
						s.appendRequests(ctx, batch, false)
					}
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

// auditLinger is how long a worker holding a record waits for more before it appends: a few
// milliseconds of delay in the log buys one commit for many requests.
const auditLinger = 10 * time.Millisecond

// collect waits auditLinger, then adds to batch what has been queued meanwhile (up to
// maxAuditBatch). It does not take records one by one as they arrive: a worker woken for every
// request would compete with the requests for the CPU.
func (s *Service) collect(ctx context.Context, batch []curlsession.RequestProxied) []curlsession.RequestProxied {
	t := time.NewTimer(auditLinger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	return s.drain(batch)
}

// drain adds to batch what is queued, without waiting, up to maxAuditBatch.
func (s *Service) drain(batch []curlsession.RequestProxied) []curlsession.RequestProxied {
	for len(batch) < maxAuditBatch {
		select {
		case ev := <-s.queue:
			batch = append(batch, ev)
		default:
			return batch
		}
	}
	return batch
}

// appendRequests writes records, one append per session (to the session's stream, after its
// SessionMinted), retrying a failed append with the same event ids (an idempotent retry): three
// attempts, or, when persist is set, until it succeeds, the store is closed or ctx ends. Records that
// still cannot be written are logged at error level with everything they hold (they hold no secret).
func (s *Service) appendRequests(ctx context.Context, batch []curlsession.RequestProxied, persist bool) {
	var order []uuid.UUID
	bySession := map[uuid.UUID][]curlsession.RequestProxied{}
	for _, ev := range batch {
		if _, ok := bySession[ev.SessionID]; !ok {
			order = append(order, ev.SessionID)
		}
		bySession[ev.SessionID] = append(bySession[ev.SessionID], ev)
	}
	for _, sid := range order {
		evs := bySession[sid]
		data, err := s.encodeRequests(evs)
		if err == nil {
			err = s.appendRetrying(ctx, curlsession.SessionStreamName(sid), data, persist)
		}
		if err != nil {
			for _, ev := range evs {
				s.log.ErrorContext(ctx, "curl proxy: audit record not written", "err", err, "request_id", ev.RequestID, "session_id", ev.SessionID,
					"user", ev.UserID, "integration", ev.Integration, "method", ev.Method, "path", ev.Path, "status", ev.Status,
					"error_code", ev.ErrorCode, "request_bytes", ev.RequestBytes, "response_bytes", ev.ResponseBytes, "duration_ms", ev.DurationMS)
			}
		}
	}
}

// maxAuditBackoff caps the wait between two attempts of a persistent append.
const maxAuditBackoff = 2 * time.Second

func (s *Service) appendRetrying(ctx context.Context, stream string, data []eventstore.EventData, persist bool) error {
	wait := 100 * time.Millisecond
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), AuditTimeout)
		_, err := s.store.Append(actx, stream, eventstore.Any, data...)
		cancel()
		if err == nil || errors.Is(err, eventstore.ErrClosed) {
			return err
		}
		if attempt >= 3 && (!persist || ctx.Err() != nil) {
			return err
		}
		if attempt == 3 {
			s.log.WarnContext(ctx, "curl proxy: the audit log refuses outcome records; retrying until it takes them", "err", err, "records", len(data))
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		wait = min(2*wait, maxAuditBackoff)
	}
}

func (s *Service) encodeRequests(evs []curlsession.RequestProxied) ([]eventstore.EventData, error) {
	out := make([]eventstore.EventData, 0, len(evs))
	for _, ev := range evs {
		if err := ev.Validate(); err != nil {
			return nil, err
		}
		data, err := encodeProxied(ev)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", curlsession.TypeRequestProxied, err)
		}
		md := eventstore.Metadata{Actor: ev.UserID.String(), CorrelationID: ev.SessionID.String(), CausationID: ev.RequestID.String(), Time: ev.At}
		out = append(out, eventstore.EventData{ID: ev.RequestID, Type: curlsession.TypeRequestProxied, SchemaVersion: 1, Data: data, Metadata: md})
	}
	if len(out) == 0 {
		return nil, errors.New("no records")
	}
	return out, nil
}

// appendEvent appends one event as the first of a new stream. It runs even if the caller has gone:
// what it records has happened.
func (s *Service) appendEvent(ctx context.Context, stream string, ev interface {
	domain.Event
	Validate() error
}, user uuid.UUID, client string, session uuid.UUID, at time.Time) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	typ, sv, data, err := s.codec.Encode(ev)
	if err != nil {
		return fmt.Errorf("encode %s: %w", ev.EventType(), err)
	}
	md := eventstore.Metadata{Actor: user.String(), MCPClient: client, CorrelationID: session.String(), Time: at}
	_, err = s.store.Append(context.WithoutCancel(ctx), stream, eventstore.NoStream,
		eventstore.EventData{ID: uuid.Must(uuid.NewV7()), Type: typ, SchemaVersion: sv, Data: data, Metadata: md})
	return err
}

// Forwarded makes a request's RequestForwarded record durable (group-committed with other appends
// by the store) and returns nil only then. The caller sends the request to the provider only after a
// nil: this is the record that a request went out with the user's credential. A failure (or no
// commit within AuditTimeout) means the log is down, and the request must not be sent.
func (s *Service) Forwarded(ctx context.Context, ev curlsession.RequestForwarded) error {
	if err := ev.Validate(); err != nil {
		return err
	}
	data, err := encodeForwarded(ev)
	if err != nil {
		return fmt.Errorf("encode %s: %w", curlsession.TypeRequestForwarded, err)
	}
	md := eventstore.Metadata{Actor: ev.UserID.String(), CorrelationID: ev.SessionID.String(), CausationID: ev.RequestID.String(), Time: ev.At}
	return s.appendNow(ctx, ev.SessionID, []eventstore.EventData{{ID: uuid.Must(uuid.NewV7()), Type: curlsession.TypeRequestForwarded, SchemaVersion: 1, Data: data, Metadata: md}})
}

// Refused makes the RequestProxied record of a request refused before it was forwarded durable,
// within AuditTimeout, and returns nil only then; the caller answers the refusal only after a nil.
func (s *Service) Refused(ctx context.Context, ev curlsession.RequestProxied) error {
	data, err := s.encodeRequests([]curlsession.RequestProxied{ev})
	if err != nil {
		return err
	}
	return s.appendNow(ctx, ev.SessionID, data)
}

// Proxied queues a forwarded request's RequestProxied record once it is over (Run appends it); when
// the queue is full it appends it here, before returning.
func (s *Service) Proxied(ctx context.Context, ev curlsession.RequestProxied) {
	select {
	case s.queue <- ev:
	default:
		s.appendRequests(ctx, []curlsession.RequestProxied{ev}, false)
	}
}

// appendNow appends to the session's stream and waits until it is durable, or AuditTimeout (give or
// take deadlineStep, see deadlines). It outlives the caller's connection: what it records has
// happened. It keeps the caller's context values (the trace the append's span belongs to).
func (s *Service) appendNow(ctx context.Context, session uuid.UUID, data []eventstore.EventData) error {
	_, err := s.store.Append(withDeadline{Context: s.deadlines.get(), values: ctx}, curlsession.SessionStreamName(session), eventstore.Any, data...)
	return err
}

// deadlineStep is how long one shared deadline context is handed out (see deadlines).
const deadlineStep = 50 * time.Millisecond

// deadlines gives the synchronous appends (Forwarded, Refused) their AuditTimeout without a timer
// each: every append that starts within one deadlineStep shares a context that ends AuditTimeout
// after the first of them, so one gives up between AuditTimeout-deadlineStep and AuditTimeout after
// it started. A context is never cancelled early (others may hold it); it ends at its deadline.
type deadlines struct {
	cur atomic.Pointer[sharedDeadline]
}

type sharedDeadline struct {
	ctx    context.Context
	cancel context.CancelFunc // kept only so the context's resources are owned; it ends by itself
	made   time.Time
}

func (d *deadlines) get() context.Context {
	now := time.Now()
	if c := d.cur.Load(); c != nil && now.Sub(c.made) < deadlineStep {
		return c.ctx
	}
	ctx, cancel := context.WithDeadline(context.Background(), now.Add(AuditTimeout))
	d.cur.Store(&sharedDeadline{ctx: ctx, cancel: cancel, made: now}) // racing makers: either one serves
	return ctx
}

// withDeadline is a shared deadline context carrying one caller's values (as context.WithoutCancel
// would, with the deadline added).
type withDeadline struct {
	context.Context
	values context.Context
}

func (c withDeadline) Value(key any) any { return c.values.Value(key) }
