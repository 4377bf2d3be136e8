package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// RelayConfig wires a Relay.
type RelayConfig struct {
	Store eventstore.Store // the log to follow; required
	Bus   *Bus             // where to publish; required

	// Checkpoint keeps the position of the last published event. nil: a MemoryCheckpoint from
	// eventstore.Start (the whole log is published again at every start).
	Checkpoint Checkpoint
	// Lock, when set, is held while publishing, so that one relay among replicas publishes.
	Lock Lock

	Topic     string // default EventsTopic
	BatchSize int    // most events per Publish (default 256)
	// SaveInterval is the least time between two checkpoint writes (default 250ms; negative saves
	// after every batch). Positions published meanwhile are saved when it has passed, and the last one
	// when the relay stops; a crash in between publishes those events again, which consumers drop.
	SaveInterval time.Duration
	Backoff      time.Duration // first wait after a failure, doubling up to 30s (default 500ms)
	Logger       *slog.Logger

	// Select, when set, picks the events to publish by their stream and type; the others are not
	// encoded or sent, and the checkpoint moves past them all the same. Wiring passes a function of
	// Bus.Wants, so that only events some subscriber asks for cost a publish. nil publishes every
	// event.
	Select Match
}

// Relay publishes every committed event of the log (or those RelayConfig.Select accepts) to the bus,
// in commit order, at least once.
//
// It follows the log with Store.Subscribe from its checkpoint, publishes what it reads in batches,
// and saves the checkpoint once a batch is on the bus, at most every SaveInterval (a checkpoint write
// is a database commit, which on SQLite competes with the event store's appends for the one write
// lock), and once more when it stops (a batch on its way at that moment is let finish first, see
// publish). It reads the log, not the append path: an event is published
// only once it is committed and readable, and an event committed while no relay ran is read on the
// next start, from the checkpoint. A crash between a publish and its checkpoint write publishes those
// events again; consumers drop the repeats (Dedup), and NATS drops them itself within its duplicate
// window.
type Relay struct {
	cfg RelayConfig
	log *slog.Logger

	mu  sync.Mutex
	pos eventstore.Position
}

// NewRelay checks cfg and fills its defaults.
func NewRelay(cfg RelayConfig) (*Relay, error) {
	if cfg.Store == nil || cfg.Bus == nil {
		return nil, errors.New("bus: relay needs a Store and a Bus")
	}
	if cfg.Checkpoint == nil {
		cfg.Checkpoint = NewMemoryCheckpoint(eventstore.Start)
	}
	if cfg.Topic == "" {
		cfg.Topic = EventsTopic
	}
	if err := checkTopic(cfg.Topic); err != nil {
		return nil, err
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 256
	}
	switch {
	case cfg.SaveInterval == 0:
		cfg.SaveInterval = 250 * time.Millisecond
	case cfg.SaveInterval < 0:
		cfg.SaveInterval = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Relay{cfg: cfg, log: cfg.Logger.With("relay", cfg.Topic)}, nil
}

// Position is the position of the last event this relay has published and checkpointed.
func (r *Relay) Position() eventstore.Position {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos
}

// Run relays until ctx ends (returning nil) or the store or bus closes (returning that error). Any
// other failure (the bus or a database unreachable, the lock lost) is logged and retried with
// backoff, resuming from the checkpoint.
func (r *Relay) Run(ctx context.Context) error {
	wait := r.cfg.Backoff
	for {
		back := r.cfg.Bus.Reconnected()
		published, err := r.runOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, eventstore.ErrClosed) || errors.Is(err, ErrClosed) {
			return fmt.Errorf("bus: relay stopped: %w", err)
		}
		if published {
			wait = r.cfg.Backoff
		}
		if err != nil {
			r.log.Warn("bus: relay interrupted; retrying", "err", err, "in", wait)
		}
		// The backoff spares a database or bus that is down, but it must not outlast the outage: a
		// bus that has reconnected gets the events at once (the waiters of other replicas depend on
		// them), and from a fresh backoff, since its server may need a moment more to serve streams.
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-back:
			t.Stop()
			r.log.Info("bus: relay resumes: the bus has reconnected")
			wait = r.cfg.Backoff
			continue
		case <-t.C:
		}
		wait = min(wait*2, 30*time.Second)
	}
}

// drainTimeout is how long a stopping relay lets a batch already on its way finish.
const drainTimeout = 5 * time.Second

// publish sends one batch. A stop (ctx ending) does not cut a batch already on its way: it gets
// drainTimeout to finish, so that the checkpoint saved on the way out covers what reached the bus
// (a batch cut short is published again at the next start, its first messages possibly delivered
// twice). Losing the lock (run ending while ctx has not) cuts it at once: another relay publishes now.
func (r *Relay) publish(ctx, run context.Context, batch []eventstore.Envelope) error {
	pctx, cancel := context.WithCancel(context.WithoutCancel(run))
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
			return
		case <-run.Done():
		}
		if ctx.Err() == nil {
			cancel()
			return
		}
		t := time.NewTimer(drainTimeout)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			cancel()
		}
	}()
	return r.cfg.Bus.Publish(pctx, r.cfg.Topic, batch...)
}

// selected keeps, in place, the events of batch that Select accepts (all of them without Select).
func (r *Relay) selected(batch []eventstore.Envelope) []eventstore.Envelope {
	if r.cfg.Select == nil {
		return batch
	}
	out := batch[:0]
	for _, env := range batch {
		if r.cfg.Select(env.Stream, env.Type) {
			out = append(out, env)
		}
	}
	return out
}

// runOnce takes the lock, then publishes from the checkpoint until something fails. It reports
// whether it published anything, so Run can reset its backoff.
func (r *Relay) runOnce(ctx context.Context) (published bool, err error) {
	held, release := ctx, func() {}
	if r.cfg.Lock != nil {
		held, release, err = r.cfg.Lock.Acquire(ctx)
		if err != nil {
			return false, err
		}
		r.log.Info("bus: relay holds the lock; publishing")
	}
	defer release()

	from, err := r.cfg.Checkpoint.Load(held)
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	r.pos = from
	r.mu.Unlock()

	// The store's subscription feeds a queue; this goroutine drains it in batches, so a burst of
	// commits becomes a few publishes and checkpoint writes instead of one per event.
	run, stop := context.WithCancel(held)
	defer stop()
	queue := make(chan eventstore.Envelope, r.cfg.BatchSize)
	followed := make(chan error, 1)
	go func() {
		followed <- r.cfg.Store.Subscribe(run, from, func(env eventstore.Envelope) error {
			select {
			case queue <- env:
				return nil
			case <-run.Done():
				return run.Err()
			}
		})
	}()
	defer func() {
		stop()
		<-followed
	}()

	// The position published but not saved yet, and the timer that saves it once SaveInterval has
	// passed since the last save.
	var (
		unsaved  eventstore.Position
		dirty    bool
		lastSave time.Time
		flush    *time.Timer
		flushDue <-chan time.Time
	)
	save := func(ctx context.Context) error {
		if flush != nil {
			flush.Stop()
			flush, flushDue = nil, nil
		}
		if !dirty {
			return nil
		}
		if err := r.cfg.Checkpoint.Save(ctx, unsaved); err != nil {
			return err
		}
		dirty, lastSave = false, time.Now()
		r.mu.Lock()
		r.pos = unsaved
		r.mu.Unlock()
		return nil
	}
	defer func() {
		// Stopping (shutdown, a failed publish, the subscription ending): save what was published, so
		// a clean restart publishes nothing twice. Not when the lock was lost: another relay owns the
		// checkpoint now.
		if !dirty || (held.Err() != nil && ctx.Err() == nil) {
			if flush != nil {
				flush.Stop()
			}
			return
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if serr := save(sctx); serr != nil {
			r.log.Warn("bus: relay checkpoint not saved on stop; the last events will be published again", "err", serr)
			if err == nil {
				err = serr
			}
		}
	}()

	batch := make([]eventstore.Envelope, 0, r.cfg.BatchSize)
	for {
		batch = batch[:0]
		select {
		case <-flushDue:
			if err := save(run); err != nil {
				return published, err
			}
			continue
		case <-run.Done():
			if ctx.Err() == nil {
				return published, errors.New("bus: relay lock lost")
			}
			return published, ctx.Err()
		case err := <-followed:
			followed <- err // for the deferred wait
			if err == nil {
				err = errors.New("event log subscription ended")
			}
			return published, fmt.Errorf("bus: follow the event log: %w", err)
		case env := <-queue:
			batch = append(batch, env)
		}
	fill:
		for len(batch) < cap(batch) {
			select {
			case env := <-queue:
				batch = append(batch, env)
			default:
				break fill
			}
		}
		if run.Err() != nil { // stopping: start no new batch (select picks among ready cases at random)
			continue
		}
		last := batch[len(batch)-1].Position
		if send := r.selected(batch); len(send) > 0 {
			if err := r.publish(ctx, run, send); err != nil {
				return published, err
			}
		}
		unsaved, dirty, published = last, true, true
		switch wait := r.cfg.SaveInterval - time.Since(lastSave); {
		case wait <= 0:
			if err := save(run); err != nil {
				return published, err
			}
		case flush == nil:
			flush = time.NewTimer(wait)
			flushDue = flush.C
		}
	}
}
