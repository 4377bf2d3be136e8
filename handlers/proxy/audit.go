package proxy

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
)

func newID() uuid.UUID { return uuid.New() }

// Run appends the queued request records until ctx ends, then appends whatever is still queued and
// returns. Main runs it as a background task that outlives the HTTP server's drain, so the records
// of the last requests are written before the store closes.
//
// Why a queue: a request's record holds its status, sizes and duration, so it can only be written
// once the response has been relayed (a stream cannot be withheld the way an execute_tools result
// is). Appending it on the request's own connection would hold that connection (and the next
// request on it) for a log commit; the queue lets the handler return at once, and the workers'
// concurrent appends share the store's group commits. A full queue makes the handler append its own
// record, so a backlog slows requests down instead of dropping records.
func (p *Proxy) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for range p.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case ev := <-p.queue:
					p.appendRequest(ctx, ev)
				case <-ctx.Done():
					for {
						select {
						case ev := <-p.queue:
							p.appendRequest(ctx, ev)
						default:
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return nil
}

// appendRequest writes one record, retrying a failed append a few times; a record that still
// cannot be written is logged at error level with everything it holds (it holds no secret).
func (p *Proxy) appendRequest(ctx context.Context, ev curlsession.RequestProxied) {
	ctx = context.WithoutCancel(ctx)
	var err error
	for attempt := range 3 {
		if attempt > 0 {
			time.Sleep(time.Duration(attempt) * 100 * time.Millisecond)
		}
		err = p.appendEvent(ctx, curlsession.RequestStreamName(ev.RequestID), ev, ev.UserID, "", ev.SessionID, ev.At)
		// A conflict on a retry means the earlier attempt was written after all.
		if err == nil || (attempt > 0 && errors.Is(err, eventstore.ErrConflict)) {
			return
		}
	}
	p.log.ErrorContext(ctx, "curl proxy: audit record not written", "err", err, "request_id", ev.RequestID, "session_id", ev.SessionID,
		"user", ev.UserID, "integration", ev.Integration, "method", ev.Method, "path", ev.Path, "status", ev.Status,
		"error_code", ev.ErrorCode, "request_bytes", ev.RequestBytes, "response_bytes", ev.ResponseBytes, "duration_ms", ev.DurationMS)
}
