package browserpool

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/workbench/workbench/internal/ssrf"
)

// Errors the pool answers.
var (
	// ErrBusy: a spawn for this user is in flight, or a profile reset is pending or running.
	ErrBusy = errors.New("browser: BROWSER_SESSION_BUSY: the user's browser session is starting or being reset; try again shortly")
	// ErrLimit: the server runs as many sessions as it may (MaxSessions).
	ErrLimit = errors.New("browser: the server runs as many browser sessions as it may (BROWSER_MAX_SESSIONS); try again later")
	// ErrHumanInControl: a human drives the session through the live view; tools wait until control is given back.
	ErrHumanInControl = errors.New("browser: HUMAN_IN_CONTROL: a person is driving this browser session; try again once they give control back")
	// ErrClosed: the pool has been closed.
	ErrClosed = errors.New("browser: the browser pool is closed")
	// ErrPageLimit: the session has as many pages open as it may (MaxPages).
	ErrPageLimit = errors.New("browser: the session has as many pages open as it may")
)

// Defaults for Config fields left zero.
const (
	DefaultBin         = "/usr/bin/chromium"
	DefaultIdleTTL     = 300 * time.Second
	DefaultMaxSessions = 8
	DefaultMaxPages    = 4
	// DefaultMemoryLimitBytes is 1 GiB per session.
	DefaultMemoryLimitBytes = 1 << 30
	// DefaultStartTimeout bounds a spawn, from exec to a connected DevTools session.
	DefaultStartTimeout = 30 * time.Second
)

// EventKind names what happened to a session.
type EventKind string

// The pool's events.
const (
	// EventStarted: a Chromium was spawned for the user (Restart tells whether it replaced a crashed one).
	EventStarted EventKind = "started"
	// EventStopped: the user's Chromium was closed; Reason is idle, memory_limit, shutdown or crashed.
	EventStopped EventKind = "stopped"
	// EventReset: the user's Chromium was closed and the profile wiped.
	EventReset EventKind = "reset"
)

// Stop reasons of an EventStopped.
const (
	ReasonIdle        = "idle"
	ReasonMemoryLimit = "memory_limit"
	ReasonShutdown    = "shutdown"
	ReasonCrashed     = "crashed"
)

// Event is one session lifecycle change, reported through Config.OnEvent.
type Event struct {
	Kind   EventKind
	UserID string
	At     time.Time
	// Reason says why a session stopped.
	Reason string
	// Restart is set on the EventStarted of a session whose previous Chromium crashed.
	Restart bool
	// PID is the Chromium process (and process group) id.
	PID int
	// SpawnDuration is how long an EventStarted's spawn took.
	SpawnDuration time.Duration
	// MemoryBytes is the memory the Chromium held when it was stopped for memory_limit.
	MemoryBytes int64
}

// Config configures a Pool; zero fields take the defaults.
type Config struct {
	// Bin is the Chromium executable (WORKBENCH_CHROMIUM; default /usr/bin/chromium). It is never downloaded.
	Bin string
	// DataDir is the server's data directory: profiles live under DataDir/browser/<userID>, mode 0700.
	DataDir string
	// IdleTTL closes a session unused that long (BROWSER_SESSION_TTL_SECONDS); the profile is kept.
	IdleTTL time.Duration
	// MaxSessions caps the Chromium processes the server runs at once (BROWSER_MAX_SESSIONS).
	MaxSessions int
	// MaxPages caps the pages (tabs, popups) one session keeps open (BROWSER_MAX_PAGES).
	MaxPages int
	// MemoryLimitBytes closes a session whose processes hold more (BROWSER_MEMORY_LIMIT_MB); negative: no limit.
	MemoryLimitBytes int64
	// AllowLoopback lets the browser reach loopback addresses (WORKBENCH_DEV_ALLOW_LOOPBACK; tests, development).
	AllowLoopback bool
	// Resolver resolves the hosts the browser asks for (default: the system resolver).
	Resolver ssrf.Resolver
	// Now is the clock idle time is measured with (default time.Now).
	Now func() time.Time
	// Logger receives the pool's logs.
	Logger *slog.Logger
	// OnEvent, when set, is called (synchronously, never under the pool's lock) for each lifecycle change.
	OnEvent func(Event)
	// ReapInterval is how often idle and over-limit sessions are looked for; 0: a tenth of IdleTTL,
	// between 1 and 30 seconds; negative: never in the background (tests call Reap).
	ReapInterval time.Duration
	// StartTimeout bounds one spawn (default DefaultStartTimeout).
	StartTimeout time.Duration
}

// Pool runs one Chromium per user. It is safe for concurrent use.
type Pool struct {
	cfg Config
	log *slog.Logger

	mu     sync.Mutex
	users  map[string]*entry
	closed bool

	// beforeStart and beforeWipe, when set (tests), run at the start of every spawn and before a reset
	// wipes a profile, outside the lock.
	beforeStart func(userID string)
	beforeWipe  func(userID string)

	quit     chan struct{}
	reaperWG sync.WaitGroup
	work     sync.WaitGroup // spawns, stops and resets in flight
}

// entry is a user's slot in the pool.
type entry struct {
	userID  string
	profile string

	inst     *instance
	spawning bool
	// resetting: a reset is pending (asked while claimed) or running.
	resetting    bool
	resetPending bool
	// stopping is closed when the instance being stopped is gone; nil when none is stopping.
	stopping chan struct{}
	claims   int
	lastUsed time.Time
	crashed  bool // the last instance crashed: the next start is a restart
	human    atomic.Bool
}

// userIDRE is what a user id may look like: it becomes a directory name.
var userIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// NewPool checks cfg and returns a pool; no Chromium starts until Acquire.
func NewPool(cfg Config) (*Pool, error) {
	if cfg.Bin == "" {
		cfg.Bin = DefaultBin
	}
	if cfg.DataDir == "" {
		return nil, errors.New("browser: DataDir is required")
	}
	if cfg.IdleTTL <= 0 {
		cfg.IdleTTL = DefaultIdleTTL
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.MaxPages <= 0 {
		cfg.MaxPages = DefaultMaxPages
	}
	if cfg.MemoryLimitBytes == 0 {
		cfg.MemoryLimitBytes = DefaultMemoryLimitBytes
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.ReapInterval == 0 {
		cfg.ReapInterval = min(max(cfg.IdleTTL/10, time.Second), 30*time.Second)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, "browser"), 0o700); err != nil {
		return nil, fmt.Errorf("browser: create the profile directory: %w", err)
	}
	if err := os.Chmod(filepath.Join(cfg.DataDir, "browser"), 0o700); err != nil {
		return nil, fmt.Errorf("browser: profile directory: %w", err)
	}
	p := &Pool{cfg: cfg, log: log, users: map[string]*entry{}, quit: make(chan struct{})}
	if cfg.ReapInterval > 0 {
		p.reaperWG.Add(1)
		go p.reapLoop()
	}
	return p, nil
}

// Config returns the pool's configuration with defaults applied.
func (p *Pool) Config() Config { return p.cfg }

func (p *Pool) emit(ev Event) {
	if ev.At.IsZero() {
		ev.At = p.cfg.Now()
	}
	p.log.Info("browser session "+string(ev.Kind), "user", ev.UserID, "reason", ev.Reason, "pid", ev.PID, "restart", ev.Restart)
	if p.cfg.OnEvent != nil {
		p.cfg.OnEvent(ev)
	}
}

// entryLocked returns the user's entry, creating it. p.mu is held.
func (p *Pool) entryLocked(userID string) *entry {
	e := p.users[userID]
	if e == nil {
		e = &entry{userID: userID, profile: filepath.Join(p.cfg.DataDir, "browser", userID)}
		p.users[userID] = e
	}
	return e
}

// runningLocked counts sessions running or starting. p.mu is held.
func (p *Pool) runningLocked() int {
	n := 0
	for _, e := range p.users {
		if e.inst != nil || e.spawning || e.stopping != nil {
			n++
		}
	}
	return n
}

// Acquire returns the user's session, spawning its Chromium when none is running, and claims it: the
// profile cannot be reset until every claim is released (Session.Release). It answers ErrBusy while a
// spawn for the user is in flight or a reset is pending or running, and ErrLimit when the server runs
// MaxSessions already. A Chromium found to have crashed is replaced, and the replacement reported as a
// restart.
func (p *Pool) Acquire(ctx context.Context, userID string) (*Session, error) {
	if !userIDRE.MatchString(userID) {
		return nil, fmt.Errorf("browser: user id %q is not usable as a profile name", userID)
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		e := p.entryLocked(userID)
		if e.spawning || e.resetting {
			p.mu.Unlock()
			return nil, ErrBusy
		}
		if wait := e.stopping; wait != nil {
			// An idle stop is closing the previous Chromium: the profile is free once it is gone.
			p.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if e.inst != nil && e.inst.crashed() {
			dead := e.inst
			e.inst, e.crashed = nil, true
			p.mu.Unlock()
			p.reportCrash(e, dead)
			continue
		}
		if e.inst != nil {
			e.claims++
			e.lastUsed = p.cfg.Now()
			s := &Session{p: p, e: e, inst: e.inst}
			p.mu.Unlock()
			return s, nil
		}
		if p.runningLocked() >= p.cfg.MaxSessions {
			p.mu.Unlock()
			return nil, ErrLimit
		}
		e.spawning = true
		restart := e.crashed
		p.work.Add(1)
		p.mu.Unlock()
		return p.spawn(ctx, e, restart)
	}
}

// spawn starts the user's Chromium; e.spawning is set, and cleared here.
func (p *Pool) spawn(ctx context.Context, e *entry, restart bool) (*Session, error) {
	defer p.work.Done()
	began := time.Now()
	inst, err := p.launch(ctx, e)
	p.mu.Lock()
	e.spawning = false
	if err != nil {
		p.mu.Unlock()
		p.log.Error("browser session did not start", "user", e.userID, "err", err)
		return nil, err
	}
	if p.closed {
		p.mu.Unlock()
		inst.stop(time.Second)
		return nil, ErrClosed
	}
	e.inst, e.crashed = inst, false
	e.claims++
	e.lastUsed = p.cfg.Now()
	s := &Session{p: p, e: e, inst: inst}
	p.work.Add(1)
	p.mu.Unlock()
	go p.watch(e, inst)
	p.emit(Event{Kind: EventStarted, UserID: e.userID, Restart: restart, PID: inst.pid, SpawnDuration: time.Since(began)})
	return s, nil
}

func (p *Pool) launch(ctx context.Context, e *entry) (*instance, error) {
	if p.beforeStart != nil {
		p.beforeStart(e.userID)
	}
	subreaper()
	if err := os.MkdirAll(e.profile, 0o700); err != nil {
		return nil, fmt.Errorf("browser: create profile: %w", err)
	}
	if err := os.Chmod(e.profile, 0o700); err != nil {
		return nil, fmt.Errorf("browser: profile: %w", err)
	}
	g, err := newGuard(ssrf.Options{AllowLoopback: p.cfg.AllowLoopback, Resolver: p.cfg.Resolver}, p.log)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.StartTimeout)
	defer cancel()
	inst, err := start(ctx, p.cfg.Bin, e.profile, g)
	if err != nil {
		g.close()
		return nil, err
	}
	return inst, nil
}

// watch reports a Chromium that exits without being stopped as crashed, at once.
func (p *Pool) watch(e *entry, inst *instance) {
	defer p.work.Done()
	select {
	case <-inst.exited:
	case <-p.quit:
		return
	}
	if !inst.crashed() {
		return
	}
	p.mu.Lock()
	if e.inst != inst {
		p.mu.Unlock()
		return
	}
	e.inst, e.crashed = nil, true
	p.mu.Unlock()
	p.reportCrash(e, inst)
}

// reportCrash cleans up after a Chromium that died on its own and reports it; called once per instance
// (by whoever took it out of its entry).
func (p *Pool) reportCrash(e *entry, inst *instance) {
	p.log.Warn("browser session crashed", "user", e.userID, "pid", inst.pid, "stderr", lastLine(inst.stderr.String()))
	inst.kill()
	inst.guard.close()
	p.emit(Event{Kind: EventStopped, UserID: e.userID, Reason: ReasonCrashed, PID: inst.pid})
}

// Reset closes the user's Chromium and wipes the profile. While the profile is claimed the reset is
// recorded as pending (it runs when the last claim is released) and ErrBusy is answered; ErrBusy too
// while a spawn or another reset is in flight.
func (p *Pool) Reset(ctx context.Context, userID string) error {
	if !userIDRE.MatchString(userID) {
		return fmt.Errorf("browser: user id %q is not usable as a profile name", userID)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	e := p.entryLocked(userID)
	if e.spawning || e.resetting {
		p.mu.Unlock()
		return ErrBusy
	}
	if e.claims > 0 {
		e.resetting, e.resetPending = true, true
		p.mu.Unlock()
		return ErrBusy
	}
	e.resetting = true
	p.work.Add(1)
	p.mu.Unlock()
	return p.reset(ctx, e)
}

// reset stops e's Chromium and wipes its profile; e.resetting is set, and cleared here.
func (p *Pool) reset(ctx context.Context, e *entry) error {
	defer p.work.Done()
	p.mu.Lock()
	inst, wait := e.inst, e.stopping
	e.inst = nil
	p.mu.Unlock()
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
		}
	}
	pid := 0
	if inst != nil {
		pid = inst.pid
		inst.stop(3 * time.Second)
	}
	if p.beforeWipe != nil {
		p.beforeWipe(e.userID)
	}
	err := os.RemoveAll(e.profile)
	p.mu.Lock()
	e.resetting, e.resetPending = false, false
	e.human.Store(false)
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("browser: wipe profile: %w", err)
	}
	p.emit(Event{Kind: EventReset, UserID: e.userID, PID: pid})
	return nil
}

// release drops one claim; the last one runs a pending reset.
func (p *Pool) release(e *entry) {
	p.mu.Lock()
	e.claims--
	e.lastUsed = p.cfg.Now()
	run := e.claims == 0 && e.resetPending && !p.closed
	if run {
		e.resetPending = false
		p.work.Add(1)
	}
	p.mu.Unlock()
	if run {
		go func() {
			if err := p.reset(context.Background(), e); err != nil {
				p.log.Error("pending browser profile reset failed", "user", e.userID, "err", err)
			}
		}()
	}
}

func (p *Pool) reapLoop() {
	defer p.reaperWG.Done()
	t := time.NewTicker(p.cfg.ReapInterval)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.C:
			p.Reap()
			sweepZombies()
		}
	}
}

// Reap closes every unclaimed session idle for IdleTTL or longer by the pool's clock, and every session
// whose processes hold more than MemoryLimitBytes, and returns once they are closed. The background
// reaper calls it; tests call it after moving their clock.
func (p *Pool) Reap() {
	type victim struct {
		e      *entry
		inst   *instance
		reason string
		mem    int64
		done   chan struct{}
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	now := p.cfg.Now()
	var vs []victim
	var check []*entry
	for _, e := range p.users {
		if e.inst == nil || e.spawning || e.resetting || e.stopping != nil {
			continue
		}
		if e.claims == 0 && now.Sub(e.lastUsed) >= p.cfg.IdleTTL {
			vs = append(vs, victim{e: e, inst: e.inst, reason: ReasonIdle})
			continue
		}
		check = append(check, e)
	}
	p.mu.Unlock()
	if p.cfg.MemoryLimitBytes > 0 {
		for _, e := range check {
			p.mu.Lock()
			inst := e.inst
			p.mu.Unlock()
			if inst == nil {
				continue
			}
			if m := memoryBytes(inst.pid); m > p.cfg.MemoryLimitBytes {
				vs = append(vs, victim{e: e, inst: inst, reason: ReasonMemoryLimit, mem: m})
			}
		}
	}
	p.mu.Lock()
	kept := vs[:0]
	for _, v := range vs {
		if v.e.inst != v.inst || v.e.stopping != nil || v.e.resetting || p.closed {
			continue // changed meanwhile
		}
		v.done = make(chan struct{})
		v.e.inst, v.e.stopping = nil, v.done
		p.work.Add(1)
		kept = append(kept, v)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, v := range kept {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer p.work.Done()
			v.inst.stop(3 * time.Second)
			p.mu.Lock()
			v.e.stopping = nil
			v.e.human.Store(false)
			p.mu.Unlock()
			close(v.done)
			if v.reason == ReasonMemoryLimit {
				p.log.Warn("browser session over its memory limit: closed", "user", v.e.userID, "bytes", v.mem, "limit", p.cfg.MemoryLimitBytes)
			}
			p.emit(Event{Kind: EventStopped, UserID: v.e.userID, Reason: v.reason, PID: v.inst.pid, MemoryBytes: v.mem})
		}()
	}
	wg.Wait()
}

// Close stops every Chromium (each process group killed and reaped) and refuses further use.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.quit)
	var insts []*entry
	for _, e := range p.users {
		if e.inst != nil {
			insts = append(insts, e)
		}
	}
	p.mu.Unlock()
	p.reaperWG.Wait()
	var wg sync.WaitGroup
	for _, e := range insts {
		p.mu.Lock()
		inst := e.inst
		e.inst = nil
		p.mu.Unlock()
		if inst == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			inst.stop(2 * time.Second)
			p.emit(Event{Kind: EventStopped, UserID: e.userID, Reason: ReasonShutdown, PID: inst.pid})
		}()
	}
	wg.Wait()
	// Spawns, stops and resets in flight finish (a spawn that completes after closed stops its Chromium).
	p.work.Wait()
	// Chromium's crash handlers exit on their own once their browser is gone: reap them (waiting at
	// most a second: a handler of a Chromium started by other code of this process may outlive us).
	for range 100 {
		sweepZombies()
		if len(chromiumChildren()) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// Holds reports whether this pool runs, or is starting, the user's Chromium.
func (p *Pool) Holds(userID string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.users[userID]
	return e != nil && (e.inst != nil || e.spawning)
}

// PIDs returns the Chromium process ids running now, by user (tests and the benchmark read it).
func (p *Pool) PIDs() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]int{}
	for id, e := range p.users {
		if e.inst != nil {
			out[id] = e.inst.pid
		}
	}
	return out
}

// MemoryBytes returns the memory the user's Chromium holds now (0 when none runs).
func (p *Pool) MemoryBytes(userID string) int64 {
	p.mu.Lock()
	e := p.users[userID]
	var pid int
	if e != nil && e.inst != nil {
		pid = e.inst.pid
	}
	p.mu.Unlock()
	if pid == 0 {
		return 0
	}
	return memoryBytes(pid)
}

// Session is one claim on a user's running Chromium, returned by Acquire. Release it when done.
type Session struct {
	p        *Pool
	e        *entry
	inst     *instance
	released atomic.Bool
}

// UserID is the session's owner.
func (s *Session) UserID() string { return s.e.userID }

// Browser is the session's Chromium.
func (s *Session) Browser() *rod.Browser { return s.inst.browser }

// PID is the Chromium's process id.
func (s *Session) PID() int { return s.inst.pid }

// Touch marks the session used now: its idle time starts again.
func (s *Session) Touch() {
	s.p.mu.Lock()
	s.e.lastUsed = s.p.cfg.Now()
	s.p.mu.Unlock()
}

// Release ends this claim (once; later calls do nothing). A reset asked for while the profile was
// claimed runs when the last claim is released.
func (s *Session) Release() {
	if s.released.CompareAndSwap(false, true) {
		s.p.release(s.e)
	}
}

// SetHumanInControl records whether a person drives the session through the live view; while one
// does, the browser tools answer ErrHumanInControl.
func (s *Session) SetHumanInControl(v bool) { s.e.human.Store(v) }

// HumanInControl reports whether a person drives the session.
func (s *Session) HumanInControl() bool { return s.e.human.Load() }

// Alive reports whether the session's Chromium still runs.
func (s *Session) Alive() bool { return s.inst.alive() && !s.inst.crashed() }

// Refusals returns the requests the containment proxy refused after the first `since` of them, and the
// count so far (pass it back as since to see only newer ones).
func (s *Session) Refusals(since uint64) ([]Refusal, uint64) { return s.inst.guard.refusals(since) }

// Page returns the session's current page, bound to ctx, creating one when none is open. Pages over
// MaxPages (popups) are closed, the current one kept.
func (s *Session) Page(ctx context.Context) (*rod.Page, error) {
	in := s.inst
	if !in.alive() {
		return nil, errNotRunning
	}
	in.pageMu.Lock()
	defer in.pageMu.Unlock()
	b := in.browser.Context(ctx)
	targets, err := proto.TargetGetTargets{}.Call(b)
	if err != nil {
		if !in.alive() {
			return nil, errNotRunning
		}
		return nil, fmt.Errorf("browser: list pages: %w", err)
	}
	var pages []proto.TargetTargetID
	current := false
	for _, t := range targets.TargetInfos {
		if t.Type != proto.TargetTargetInfoTypePage {
			continue
		}
		pages = append(pages, t.TargetID)
		if in.page != nil && t.TargetID == in.page.TargetID {
			current = true
		}
	}
	if !current {
		in.page = nil
		if len(pages) > 0 {
			// Pages are made on the browser without the call's context: they outlive the call.
			pg, err := in.browser.PageFromTarget(pages[0])
			if err != nil {
				return nil, fmt.Errorf("browser: open page: %w", err)
			}
			in.page = pg.Context(context.Background())
		} else {
			pg, err := in.browser.Page(proto.TargetCreateTarget{URL: "about:blank"})
			if err != nil {
				return nil, fmt.Errorf("browser: create page: %w", err)
			}
			in.page = pg.Context(context.Background())
			pages = append(pages, pg.TargetID)
		}
	}
	if extra := len(pages) - s.p.cfg.MaxPages; extra > 0 {
		for i := len(pages) - 1; i >= 0 && extra > 0; i-- {
			if pages[i] == in.page.TargetID {
				continue
			}
			_, _ = proto.TargetCloseTarget{TargetID: pages[i]}.Call(b)
			extra--
		}
	}
	return in.page.Context(ctx), nil
}
