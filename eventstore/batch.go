package eventstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// AppendRequest is one caller's append, waiting to join a group commit.
type AppendRequest struct {
	Stream   string
	Expected ExpectedVersion
	Events   []EventData
}

// AppendOutcome is one request's result inside a committed batch: the position of its last event, or
// the error that refused it alone (a *ConflictError, say) while the rest of the batch committed.
type AppendOutcome struct {
	Position Position
	Err      error
}

// CommitFunc writes a batch of requests in one transaction and makes it durable before returning.
// It returns one outcome per request, in order. Requests are applied in order, so a later request on
// the same stream sees the versions an earlier one wrote. A returned error means nothing of the batch
// was committed; every request then fails with it.
type CommitFunc func(ctx context.Context, batch []AppendRequest) ([]AppendOutcome, error)

// Batcher coalesces concurrent appends into group commits: while one batch is being written, newly
// arriving appends queue up and go together in the next transaction, so N concurrent appenders pay for
// about one fsync per batch instead of N. An append returns only when its batch is durable. A caller
// alone inside Append, with nothing queued and nothing committing, commits its own request on its own
// goroutine, so a lone appender does not pay for two hand-offs to the batching goroutine and back;
// commits never overlap either way.
type Batcher struct {
	commit   CommitFunc
	maxBatch int
	after    func(batch []AppendRequest, outcomes []AppendOutcome)
	linger   time.Duration

	// inflight counts callers inside Append, including those waiting for their batch's outcome.
	inflight atomic.Int64
	// lastSize is the size of the previous batch (loop goroutine only).
	lastSize int
	// commits and events count the batches committed and the events they wrote (Stats).
	commits, events atomic.Int64
	// directs counts the commits made on a lone caller's goroutine (Stats).
	directs atomic.Int64
	// committing and lingering sum the wall time spent inside CommitFunc and lingering for late
	// callers before a commit, in nanoseconds (Stats).
	committing, lingering atomic.Int64

	// direct lets Append commit a lone request on the caller's goroutine (see Append).
	direct bool
	// turn is held by whoever is committing: the loop for a batch, or a caller committing its own
	// request directly (Append, when nothing is queued or committing). Commits never overlap.
	turn  chan struct{}
	queue chan *pending
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
	mu    sync.RWMutex
	shut  bool
}

type pending struct {
	ctx   context.Context
	req   AppendRequest
	reply chan AppendOutcome
}

// BatcherOptions tune a Batcher; nil means defaults.
type BatcherOptions struct {
	// MaxBatch caps how many requests one transaction takes (default 256).
	MaxBatch int
	// AfterCommit, when set, is called once per committed batch after the transaction is durable and
	// before the callers are answered (wake subscribers, publish to the bus). It must not block long.
	AfterCommit func(batch []AppendRequest, outcomes []AppendOutcome)
	// Linger is how long a batch may wait for callers that are still inside Append (typically the ones
	// the previous batch just answered, about to send their next append) before it commits. It applies
	// only when the previous batch held more than one request, so a lone appender never waits. Without
	// it, N closed-loop appenders split into two alternating half-batches. Default 2ms; negative
	// disables it.
	Linger time.Duration
}

// NewBatcher starts the goroutine that writes batches with commit.
func NewBatcher(commit CommitFunc, opts *BatcherOptions) *Batcher {
	return newBatcher(commit, opts, true)
}

// newBatcher is NewBatcher; direct says whether a lone caller may commit on its own goroutine (the
// tests that pin how the loop forms batches turn it off).
func newBatcher(commit CommitFunc, opts *BatcherOptions, direct bool) *Batcher {
	b := &Batcher{commit: commit, maxBatch: 256, linger: 2 * time.Millisecond, direct: direct, turn: make(chan struct{}, 1), queue: make(chan *pending, 1024), stop: make(chan struct{}), done: make(chan struct{})}
	if opts != nil {
		if opts.MaxBatch > 0 {
			b.maxBatch = opts.MaxBatch
		}
		if opts.Linger != 0 {
			b.linger = max(opts.Linger, 0)
		}
		b.after = opts.AfterCommit
	}
	go b.loop()
	return b
}

// Append queues req for the next group commit and waits for its outcome. If ctx ends before the batch
// holding req starts to commit, req is dropped and ctx.Err() returned; once its batch is committing, the
// outcome is final and Append waits for it, so an acknowledged append is never in doubt.
func (b *Batcher) Append(ctx context.Context, req AppendRequest) (Position, error) {
	b.inflight.Add(1)
	defer b.inflight.Add(-1)
	b.mu.RLock()
	if b.shut {
		b.mu.RUnlock()
		return Position{}, ErrClosed
	}
	if b.direct && b.inflight.Load() == 1 && len(b.queue) == 0 {
		select {
		case b.turn <- struct{}{}:
			// No other caller is inside Append and nobody is committing: commit this request on the
			// caller's own goroutine, sparing a lone appender two hand-offs to the loop and back.
			// Appends arriving meanwhile queue up and go in the loop's next batch, once this commit
			// is over. (With other callers about, even ones just answered, the loop's batch is
			// where this request belongs: they are likely to append again at once.)
			defer b.mu.RUnlock()
			out := b.commitDirect(ctx, req)
			return out.Position, out.Err
		default:
		}
	}
	p := &pending{ctx: ctx, req: req, reply: make(chan AppendOutcome, 1)}
	select {
	case b.queue <- p:
	case <-ctx.Done():
		b.mu.RUnlock()
		return Position{}, ctx.Err()
	}
	b.mu.RUnlock()
	out := <-p.reply
	return out.Position, out.Err
}

// BatchStats counts a Batcher's work since it started.
type BatchStats struct {
	Commits int64 // batches committed
	Events  int64 // events appended by them (idempotent retries included)
	Direct  int64 // of the Commits, those a lone caller made on its own goroutine
	// Committing is the wall time spent inside the CommitFunc (writing and making batches durable),
	// Lingering the time batches waited for late callers before committing: over a period, their
	// share of its length says how busy the single writer was.
	Committing, Lingering time.Duration
}

// Stats returns the batches committed so far and the events they carried: Events/Commits is the
// group commit's mean size.
func (b *Batcher) Stats() BatchStats {
	return BatchStats{Commits: b.commits.Load(), Events: b.events.Load(), Direct: b.directs.Load(),
		Committing: time.Duration(b.committing.Load()), Lingering: time.Duration(b.lingering.Load())}
}

// Close refuses new appends, commits every append already queued, and stops the writer.
func (b *Batcher) Close() {
	b.once.Do(func() {
		b.mu.Lock()
		b.shut = true
		b.mu.Unlock()
		close(b.stop)
		<-b.done
	})
}

func (b *Batcher) loop() {
	defer close(b.done)
	batch := make([]*pending, 0, b.maxBatch)
	for {
		var first *pending
		select {
		case first = <-b.queue:
		case <-b.stop:
			// Drain: nothing new can arrive (shut is set under the lock every sender holds).
			for {
				select {
				case p := <-b.queue:
					b.turn <- struct{}{}
					b.run(append(batch[:0], p))
				default:
					return
				}
			}
		}
		// The turn is taken before the batch is filled and lingers, so no caller commits directly
		// past a batch that is forming (it waits while a direct commit runs).
		b.turn <- struct{}{}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < b.maxBatch {
			select {
			case p := <-b.queue:
				batch = append(batch, p)
			default:
				break fill
			}
		}
		if b.linger > 0 && b.lastSize > 1 {
			t := time.Now()
			batch = b.gather(batch)
			b.lingering.Add(int64(time.Since(t)))
		}
		b.lastSize = len(batch)
		b.run(batch)
	}
}

// lingerCheck is how often a lingering batch looks again whether anyone it waits for is still inside
// Append (see gather).
const lingerCheck = 100 * time.Microsecond

// gather waits up to the linger time for callers still inside Append to queue their requests, so that
// closed-loop appenders answered by the previous batch join this one instead of forming the next.
// Callers answered by the previous batch count until they return from Append; one that returns to do
// other work before its next append (an HTTP handler answering its client) will not queue anything,
// so gather looks again every lingerCheck and commits as soon as nobody is left to wait for, rather
// than at the end of the linger.
func (b *Batcher) gather(batch []*pending) []*pending {
	timer := time.NewTimer(b.linger)
	defer timer.Stop()
	var check *time.Ticker
	var recheck <-chan time.Time
	if b.linger > lingerCheck {
		check = time.NewTicker(lingerCheck)
		defer check.Stop()
		recheck = check.C
	}
	for len(batch) < b.maxBatch && int64(len(batch)) < b.inflight.Load() {
		select {
		case p := <-b.queue:
			batch = append(batch, p)
		case <-recheck:
		case <-timer.C:
			return batch
		case <-b.stop:
			return batch
		}
	}
	return batch
}

// commitDirect commits req alone, holding the turn Append took, and gives the turn back.
func (b *Batcher) commitDirect(ctx context.Context, req AppendRequest) AppendOutcome {
	defer func() { <-b.turn }()
	if err := ctx.Err(); err != nil {
		return AppendOutcome{Err: err}
	}
	outcomes, err := b.commitHeld([]AppendRequest{req})
	if err != nil {
		return AppendOutcome{Err: err}
	}
	b.directs.Add(1)
	return outcomes[0]
}

// commitHeld commits reqs in the turn its caller holds, counts what the batch wrote and calls the
// AfterCommit hook. The batch commits on its own context: callers that give up mid-commit must not
// tear down a transaction that other callers' events share.
func (b *Batcher) commitHeld(reqs []AppendRequest) ([]AppendOutcome, error) {
	t := time.Now()
	outcomes, err := b.commit(context.Background(), reqs)
	b.committing.Add(int64(time.Since(t)))
	if err != nil {
		return nil, err
	}
	if len(outcomes) != len(reqs) {
		panic("eventstore: CommitFunc returned the wrong number of outcomes")
	}
	n := 0
	for i, o := range outcomes {
		if o.Err == nil {
			n += len(reqs[i].Events)
		}
	}
	b.commits.Add(1)
	b.events.Add(int64(n))
	if b.after != nil {
		b.after(reqs, outcomes)
	}
	return outcomes, nil
}

// run commits batch; the caller holds the turn, which run gives back once the batch is committed,
// before it answers the callers.
func (b *Batcher) run(batch []*pending) {
	live := batch[:0:0]
	reqs := make([]AppendRequest, 0, len(batch))
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.reply <- AppendOutcome{Err: err}
			continue
		}
		live = append(live, p)
		reqs = append(reqs, p.req)
	}
	if len(live) == 0 {
		<-b.turn
		return
	}
	outcomes, err := b.commitHeld(reqs)
	<-b.turn
	for i, p := range live {
		if err != nil {
			p.reply <- AppendOutcome{Err: err}
		} else {
			p.reply <- outcomes[i]
		}
	}
}
