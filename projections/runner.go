package projections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/migrations"
)

// Runner keeps a set of projections up to date with the event log. Create it with NewRunner, start it
// with Run; WaitFor, Status, Ready, Resume and Rebuild may be called from any goroutine.
type Runner struct {
	store    eventstore.Store
	db       *sql.DB
	q        queries
	log      *slog.Logger
	batch    int
	poll     time.Duration
	maxRetry time.Duration
	lazy     time.Duration
	// waitLimit bounds a WaitFor without a deadline (Options.WaitLimit); 0: none.
	waitLimit time.Duration
	gate      WriteGate
	procs     []*proc
	byName    map[string]*proc

	mu      sync.Mutex    // guards the fields below and the state fields of every proc
	changed chan struct{} // closed and replaced whenever a proc's state changes
	running bool
	window  window        // the events the subscription has seen that some projection may still lack
	reads   []*sharedRead // the latest reads of the log, one slot per projection, for readLog
	nextRd  int

	// inline holds InTransaction's statements, prepared on the store's writer connection (inlineMu).
	inlineMu sync.Mutex
	inline   inlineStmts
	// advanceStmt is the checkpoint update prepared on db (SQLite only; see advance), once advanceOnce
	// has run.
	advanceOnce sync.Once
	advanceStmt *sql.Stmt
}

// sharedRead is one read of the log that several projection loops may use: they are woken together
// by the same commits and mostly ask for the same events, which each would otherwise read and decode.
type sharedRead struct {
	from eventstore.Position
	done chan struct{} // closed once envs and err are set
	envs []eventstore.Envelope
	err  error
}

// proc is one projection and the runner's state for it.
type proc struct {
	p    Projection
	name string
	// step is held while a batch is read and applied. Rebuild and Run's start hold it to keep the
	// projection's loop out of the way.
	step   sync.Mutex
	wake   chan struct{} // signalled when the subscription sees a new event
	resume chan struct{} // signalled by Resume and by a successful Rebuild

	// Guarded by Runner.mu.
	pos eventstore.Position
	// persisted is the checkpoint as stored (pos may be ahead of it by events a Selective projection
	// ignores); persistedAt is when it was last written.
	persisted   eventstore.Position
	persistedAt time.Time
	caughtUp    bool
	failure     *Failure
	retrying    error
	applied     uint64
	// after are the AfterApply functions of the projection.
	after []func([]eventstore.Envelope)
}

// NewRunner returns a runner that feeds the events of store to the projections in opts, keeping their
// read models and checkpoints in db, whose SQL dialect is dialect. It registers the runner's metrics on
// opts.Registerer when set.
func NewRunner(store eventstore.Store, db *sql.DB, dialect migrations.Dialect, opts *Options) (*Runner, error) {
	if store == nil || db == nil {
		return nil, errors.New("projections: NewRunner needs an event store and a database")
	}
	q, err := queriesFor(dialect)
	if err != nil {
		return nil, err
	}
	q.sqlite = dialect == migrations.SQLite
	if opts == nil {
		opts = &Options{}
	}
	r := &Runner{
		store: store, db: db, q: q, log: opts.Logger,
		batch: 500, poll: time.Second, maxRetry: time.Second, lazy: time.Second,
		byName:  map[string]*proc{},
		changed: make(chan struct{}),
		gate:    opts.WriteGate,
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if opts.BatchSize > 0 {
		r.batch = opts.BatchSize
	}
	if opts.PollInterval > 0 {
		r.poll = opts.PollInterval
	}
	if opts.MaxRetryDelay > 0 {
		r.maxRetry = opts.MaxRetryDelay
	}
	r.waitLimit = DefaultWaitLimit
	if opts.WaitLimit != 0 {
		r.waitLimit = max(opts.WaitLimit, 0)
	}
	if opts.LazyCheckpoint != 0 {
		r.lazy = max(opts.LazyCheckpoint, 0)
	}
	for _, p := range opts.Projections {
		if p == nil || p.Name() == "" {
			return nil, errors.New("projections: a projection has no name")
		}
		if _, dup := r.byName[p.Name()]; dup {
			return nil, fmt.Errorf("projections: two projections are named %q", p.Name())
		}
		pr := &proc{p: p, name: p.Name(), wake: make(chan struct{}, 1), resume: make(chan struct{}, 1)}
		r.procs = append(r.procs, pr)
		r.byName[pr.name] = pr
	}
	if opts.Registerer != nil {
		if err := opts.Registerer.Register(newCollector(r)); err != nil {
			return nil, fmt.Errorf("projections: register metrics: %w", err)
		}
	}
	return r, nil
}

// Names returns the names of the runner's projections, in the order they were given.
func (r *Runner) Names() []string {
	out := make([]string, len(r.procs))
	for i, pr := range r.procs {
		out[i] = pr.name
	}
	return out
}

// Run applies events to every projection until ctx ends (then it returns nil) or the store closes
// (eventstore.ErrClosed). It first reads each projection's checkpoint, creating missing ones at the
// start of the log; a projection that had stopped on an event is retried. Run may be called again after
// it returns, but not twice at once.
func (r *Runner) Run(ctx context.Context) error {
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		return errors.New("projections: runner is already running")
	}
	r.running = true
	r.mu.Unlock()
	defer func() {
		// A stopped projection's failure belongs to this run: the next Run retries the event, and
		// WaitFor must not report a failure that a restart may already have cured. The checkpoint row
		// keeps the record.
		r.mu.Lock()
		r.running = false
		for _, pr := range r.procs {
			pr.failure = nil
		}
		r.notifyLocked()
		r.mu.Unlock()
	}()

	if len(r.procs) == 0 {
		<-ctx.Done()
		return nil
	}
	var from eventstore.Position
	for i, pr := range r.procs {
		pos, err := r.start(ctx, pr)
		if err != nil {
			return err
		}
		if i == 0 || pos.Less(from) {
			from = pos
		}
	}
	r.mu.Lock()
	r.window = window{}
	r.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(r.procs)+1)
	var wg sync.WaitGroup
	run := func(f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil {
				errc <- err
				cancel()
			}
		}()
	}
	run(func(ctx context.Context) error { return r.watch(ctx, from) })
	for _, pr := range r.procs {
		run(func(ctx context.Context) error { return r.follow(ctx, pr) })
	}
	r.log.Info("projections running", "projections", strings.Join(r.Names(), ","), "from", from.String())
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
		return nil
	}
}

// start loads pr's checkpoint into memory and returns its position.
func (r *Runner) start(ctx context.Context, pr *proc) (eventstore.Position, error) {
	pr.step.Lock()
	defer pr.step.Unlock()
	cp, err := r.loadCheckpoint(ctx, pr.name)
	if err != nil {
		return eventstore.Position{}, fmt.Errorf("projections: %w", err)
	}
	if cp.err != "" {
		r.log.Warn("projection had stopped on an event; retrying it", "projection", pr.name,
			"event_id", cp.eventID, "event_type", cp.eventType, "event_position", cp.errPos.String(), "err", cp.err)
	}
	select {
	case <-pr.resume:
	default:
	}
	r.mu.Lock()
	pr.pos, pr.persisted, pr.caughtUp, pr.failure, pr.retrying = cp.pos, cp.pos, false, nil, nil
	r.notifyLocked()
	r.mu.Unlock()
	return cp.pos, nil
}

// follow is one projection's loop: apply what is in the log, then wait to be woken.
func (r *Runner) follow(ctx context.Context, pr *proc) error {
	var delay time.Duration
	timer := time.NewTimer(r.poll)
	defer timer.Stop()
	for {
		pr.step.Lock()
		more, err := r.step(ctx, pr)
		pr.step.Unlock()
		if ctx.Err() != nil {
			return nil
		}
		var fail *Failure
		switch {
		case err == nil:
			delay = 0
			if more {
				continue
			}
		case errors.As(err, &fail):
			// Stopped on an event: wait for Resume or Rebuild; never move past the event.
			select {
			case <-ctx.Done():
				return nil
			case <-pr.resume:
			}
			continue
		case errors.Is(err, eventstore.ErrClosed):
			return fmt.Errorf("projections: %s: %w", pr.name, err)
		default:
			delay = nextDelay(delay, r.maxRetry)
			r.mu.Lock()
			pr.retrying = err
			r.notifyLocked()
			r.mu.Unlock()
			r.log.Warn("projection: retrying after an error", "projection", pr.name, "err", err, "retry_in", delay)
			if !sleep(ctx, delay) {
				return nil
			}
			continue
		}
		if !timer.Stop() {
			select {
			case <-timer.C:
			default:
			}
		}
		timer.Reset(r.poll)
	wait:
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-pr.wake:
				if r.upToDate(pr) {
					// Applied already, in the append's own transaction (InTransaction): a step
					// would read nothing, and would keep the next batch's hook out meanwhile.
					continue
				}
			case <-pr.resume:
			case <-timer.C:
			}
			break wait
		}
	}
}

// upToDate reports whether pr has applied every event the runner's subscription has seen and has
// caught up since the runner started.
func (r *Runner) upToDate(pr *proc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	head, seen := r.window.head()
	return seen && pr.caughtUp && pr.failure == nil && !pr.pos.Less(head)
}

// step reads one batch after pr's checkpoint and applies it. more says the loop should go on at once
// (a full batch was read, or the checkpoint was moved by someone else and has been reloaded). An event
// the projection refuses ends the step with a *Failure, after the events before it are committed. The
// caller holds pr.step.
func (r *Runner) step(ctx context.Context, pr *proc) (more bool, err error) {
	r.mu.Lock()
	from := pr.pos
	r.mu.Unlock()
	envs, err := r.readLog(ctx, from)
	if err != nil {
		return false, fmt.Errorf("read the log after %s: %w", from, err)
	}
	read := len(envs)
	var fail *Failure
	for len(envs) > 0 {
		bad, applyErr, err := r.commitBatch(ctx, pr, envs)
		if errors.Is(err, errCheckpointMoved) {
			return true, r.reload(ctx, pr)
		}
		if err != nil {
			return false, err
		}
		if applyErr == nil {
			break
		}
		if ctx.Err() != nil {
			// Apply failed because we are shutting down: not the projection's fault.
			return false, ctx.Err()
		}
		// Retry with only the events before the bad one, so the checkpoint stops right before it.
		fail = &Failure{Projection: pr.name, Event: refOf(envs[bad]), Err: applyErr, At: time.Now().UTC()}
		envs = envs[:bad]
	}
	if fail != nil {
		r.fail(ctx, pr, fail)
		return false, fail
	}
	if read < r.batch {
		r.mu.Lock()
		if !pr.caughtUp {
			pr.caughtUp = true
			r.notifyLocked()
		}
		r.mu.Unlock()
	}
	return read == r.batch, nil
}

// readLog returns up to a batch of events after from. Loops asking for the same events share one
// read: one in flight is waited for, and a finished one is used again when it is a full batch (a
// prefix of the log, whenever it was read) or reaches the newest event the subscription had seen when
// this call began. Otherwise it may lack the events that woke this loop, and the log is read anew.
// Projections must not modify the envelopes they are given (Apply takes them by value; Data is shared).
func (r *Runner) readLog(ctx context.Context, from eventstore.Position) ([]eventstore.Envelope, error) {
	r.mu.Lock()
	head, seen := r.window.head()
	var found *sharedRead
	for _, rd := range r.reads {
		if rd != nil && rd.from == from {
			found = rd
			break
		}
	}
	r.mu.Unlock()
	if found != nil {
		select {
		case <-found.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		// A finished read is reused only when it cannot be stale: a full batch (the caller comes back
		// for more), or one that reached the newest event the subscription has seen. Without a head
		// (the runner is not running: a rebuild, the CLI) nothing says how fresh it is, so read again.
		if found.err == nil && (len(found.envs) >= r.batch || (seen && !readEnd(found).Less(head))) {
			return found.envs, nil
		}
	}
	rd := &sharedRead{from: from, done: make(chan struct{})}
	r.mu.Lock()
	if len(r.reads) < len(r.procs) {
		r.reads = append(r.reads, rd)
	} else {
		r.reads[r.nextRd%len(r.reads)] = rd
	}
	r.nextRd++
	r.mu.Unlock()
	rd.envs, rd.err = r.store.ReadAll(ctx, from, r.batch)
	close(rd.done)
	return rd.envs, rd.err
}

// readEnd is the position a read reached: that of its last event, or where it started when empty.
func readEnd(rd *sharedRead) eventstore.Position {
	if len(rd.envs) == 0 {
		return rd.from
	}
	return rd.envs[len(rd.envs)-1].Position
}

func handlesAny(sel Selective, envs []eventstore.Envelope) bool {
	for _, env := range envs {
		if sel.Handles(env.Type) {
			return true
		}
	}
	return false
}

// commitBatch applies envs and moves the stored checkpoint to the last of them, in one
// transaction. If the projection refuses an event, nothing is committed and bad and applyErr say which
// event and why; err is the runner's own failure (errCheckpointMoved among them).
func (r *Runner) commitBatch(ctx context.Context, pr *proc, envs []eventstore.Envelope) (bad int, applyErr, err error) {
	to := envs[len(envs)-1].Position
	r.mu.Lock()
	persisted, persistedAt := pr.persisted, pr.persistedAt
	r.mu.Unlock()
	if sel, ok := pr.p.(Selective); ok && r.lazy > 0 && time.Since(persistedAt) < r.lazy && !handlesAny(sel, envs) {
		// Nothing here for this projection: move on without a write transaction. The stored
		// checkpoint catches up with the next batch it applies, or after the lazy interval; a restart
		// before then rereads these events and skips them again.
		r.mu.Lock()
		pr.pos = to
		r.notifyLocked()
		r.mu.Unlock()
		return 0, nil, nil
	}
	from := persisted
	unlock, err := r.lockWrites(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer unlock() // after the deferred Rollback below
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, nil, fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := r.advance(ctx, tx, pr.name, from, to); err != nil {
		return 0, nil, err
	}
	for i, env := range envs {
		if err := applyOne(ctx, pr.p, tx, env); err != nil {
			if transient(err) {
				// The database failed, not the projection: retry the batch (follow's backoff).
				return 0, nil, fmt.Errorf("apply %s at %s: %w", env.Type, env.Position, err)
			}
			return i, err, nil
		}
	}
	if err := tx.Commit(); err != nil {
		// The outcome may be unknown (connection lost during commit). The next step finds out: its
		// conditional checkpoint update fails if this commit did land, and the checkpoint is reloaded.
		return 0, nil, fmt.Errorf("commit %d events up to %s: %w", len(envs), to, err)
	}
	r.afterApply(pr, envs)
	r.mu.Lock()
	pr.pos, pr.persisted, pr.persistedAt = to, to, time.Now()
	pr.applied += uint64(len(envs))
	pr.retrying = nil
	r.notifyLocked()
	r.mu.Unlock()
	return 0, nil, nil
}

// advance is queries.advance inside tx. On SQLite it runs the statement prepared once on the pool
// (tx.StmtContext reuses what each connection prepared), so that a batch of the runner's own loop
// does not parse it again; on PostgreSQL the driver's own statement cache does that already.
func (r *Runner) advance(ctx context.Context, tx *sql.Tx, name string, from, to eventstore.Position) error {
	if !r.q.sqlite {
		return r.q.advance(ctx, tx, name, from, to)
	}
	r.advanceOnce.Do(func() {
		st, err := r.db.PrepareContext(context.WithoutCancel(ctx), r.q.advanceSQL)
		if err != nil {
			// Left unprepared: the statement runs as it always did, and fails there if it must.
			r.log.Debug("projection checkpoint update not prepared", "err", err)
			return
		}
		r.advanceStmt = st
	})
	if r.advanceStmt == nil {
		return r.q.advance(ctx, tx, name, from, to)
	}
	st := tx.StmtContext(ctx, r.advanceStmt)
	defer st.Close()
	return r.q.advanceWith(ctx, st, name, from, to)
}

// AfterApply registers fn to be called with every batch of events the named projection has applied,
// once the batch's transaction has committed and before its new position shows in WaitFor and
// Status: a cache of what the read model says drops what the batch may have changed, and whoever
// waited for the batch's position finds it dropped. fn runs on the projection's loop (or the event
// store's writer, for an Inline projection): it must be quick. fn is called with a nil batch when
// another runner (another replica over the same database) moved the read model past events this one
// never saw: whatever fn caches must then be dropped whole.
func (r *Runner) AfterApply(name string, fn func(envs []eventstore.Envelope)) error {
	pr, err := r.lookup(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	pr.after = append(pr.after, fn)
	r.mu.Unlock()
	return nil
}

func (r *Runner) afterApply(pr *proc, envs []eventstore.Envelope) {
	r.mu.Lock()
	fns := pr.after
	r.mu.Unlock()
	for _, fn := range fns {
		fn(envs)
	}
}

// applyOne calls Apply, turning a panic into an error so that one broken projection cannot take the
// process down.
func applyOne(ctx context.Context, p Projection, tx *sql.Tx, env eventstore.Envelope) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	return p.Apply(ctx, tx, env)
}

// reload rereads pr's checkpoint after another runner moved it.
func (r *Runner) reload(ctx context.Context, pr *proc) error {
	cp, err := r.loadCheckpoint(ctx, pr.name)
	if err != nil {
		return err
	}
	r.log.Info("projection checkpoint moved by another runner; continuing from it", "projection", pr.name, "position", cp.pos.String())
	// The read model changed under us by events we did not apply: caches of it drop everything, before
	// the new position shows in WaitFor (AfterApply).
	r.afterApply(pr, nil)
	r.mu.Lock()
	pr.pos, pr.persisted = cp.pos, cp.pos
	r.notifyLocked()
	r.mu.Unlock()
	return nil
}

// fail records f in pr's checkpoint row, the log and memory.
func (r *Runner) fail(ctx context.Context, pr *proc, f *Failure) {
	r.mu.Lock()
	at := pr.pos
	r.mu.Unlock()
	r.log.Error("projection stopped on an event it cannot apply", "projection", pr.name,
		"event_id", f.Event.ID.String(), "event_type", f.Event.Type, "stream", f.Event.Stream,
		"version", f.Event.Version, "event_position", f.Event.Position.String(), "err", f.Err)
	if err := r.recordFailure(ctx, f, at); err != nil {
		r.log.Error("projection failure not recorded in its checkpoint", "projection", pr.name, "err", err)
	}
	r.mu.Lock()
	pr.failure = f
	r.notifyLocked()
	r.mu.Unlock()
}

// lockWrites takes the write gate, when the runner has one, and returns its release.
func (r *Runner) lockWrites(ctx context.Context) (unlock func(), err error) {
	if r.gate == nil {
		return func() {}, nil
	}
	if err := r.gate.Lock(ctx); err != nil {
		return nil, fmt.Errorf("wait for the write gate: %w", err)
	}
	return r.gate.Unlock, nil
}

// loadCheckpoint is queries.loadCheckpoint, whose first statement may write, under the write gate.
func (r *Runner) loadCheckpoint(ctx context.Context, name string) (storedCheckpoint, error) {
	unlock, err := r.lockWrites(ctx)
	if err != nil {
		return storedCheckpoint{}, err
	}
	defer unlock()
	return r.q.loadCheckpoint(ctx, r.db, name)
}

// recordFailure is queries.recordFailure under the write gate.
func (r *Runner) recordFailure(ctx context.Context, f *Failure, at eventstore.Position) error {
	unlock, err := r.lockWrites(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	return r.q.recordFailure(ctx, r.db, f, at)
}

// Resume makes a projection that stopped on an event try that event again, typically after the fault
// was fixed. It does nothing to a healthy projection.
func (r *Runner) Resume(name string) error {
	pr, err := r.lookup(name)
	if err != nil {
		return err
	}
	r.mu.Lock()
	failed := pr.failure != nil
	pr.failure = nil
	r.notifyLocked()
	r.mu.Unlock()
	if failed {
		r.log.Info("projection resumed", "projection", name)
		select {
		case pr.resume <- struct{}{}:
		default:
		}
	}
	return nil
}

func (r *Runner) lookup(name string) (*proc, error) {
	pr, ok := r.byName[name]
	if !ok {
		names := r.Names()
		sort.Strings(names)
		return nil, fmt.Errorf("projections: no projection named %q (have: %s)", name, strings.Join(names, ", "))
	}
	return pr, nil
}

// notifyLocked wakes every WaitFor; the caller holds r.mu.
func (r *Runner) notifyLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func nextDelay(d, maxDelay time.Duration) time.Duration {
	if d == 0 {
		return 100 * time.Millisecond
	}
	return min(2*d, maxDelay)
}

// sleep waits for d or ctx, reporting false if ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
