package browserpool

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/workbench/workbench/internal/testenv"
)

// chromium returns the machine's Chromium, skipping (failing under CI=true) when there is none.
func chromium(t testing.TB) string { return testenv.ChromiumBin(t) }

// recorder keeps the pool's events and lets a test wait for one.
type recorder struct {
	mu     sync.Mutex
	events []Event
	signal chan struct{}
}

func newRecorder() *recorder { return &recorder{signal: make(chan struct{}, 100)} }

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	r.signal <- struct{}{}
}

// wait returns the first event of kind (and reason, when given) for user, waiting up to a minute.
func (r *recorder) wait(t *testing.T, kind EventKind, user, reason string) Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		for i, ev := range r.events {
			if ev.Kind == kind && ev.UserID == user && (reason == "" || ev.Reason == reason) {
				r.events = append(r.events[:i:i], r.events[i+1:]...)
				r.mu.Unlock()
				return ev
			}
		}
		r.mu.Unlock()
		select {
		case <-r.signal:
		case <-deadline:
			t.Fatalf("no %s event for %s (reason %q)", kind, user, reason)
		}
	}
}

// site serves the test pages on 127.0.0.1.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "wb="+r.URL.Query().Get("v")+"; Max-Age=3600; Path=/")
		fmt.Fprint(w, "<html><body>set</body></html>")
	})
	mux.HandleFunc("/cookie", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("wb")
		v := "none"
		if c != nil {
			v = c.Value
		}
		fmt.Fprintf(w, "<html><body><p id=c>cookie=%s</p></body></html>", v)
	})
	mux.HandleFunc("/reach", func(w http.ResponseWriter, r *http.Request) {
		target := r.URL.Query().Get("target")
		fmt.Fprintf(w, `<html><body><p id=r>pending</p><img src="%[1]s/img.png"><script>
fetch(%[1]q).then(r => r.text()).then(t => { document.getElementById('r').textContent = 'reached:' + t.slice(0, 40) },
  e => { document.getElementById('r').textContent = 'failed' })</script></body></html>`, target)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func newTestPool(t *testing.T, cfg Config) (*Pool, *recorder) {
	t.Helper()
	rec := newRecorder()
	cfg.Bin = chromium(t)
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	if cfg.ReapInterval == 0 {
		cfg.ReapInterval = -1
	}
	cfg.OnEvent = rec.on
	p, err := NewPool(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p, rec
}

// text navigates the session's page to u and returns the text of the element matched by sel.
func text(t *testing.T, s *Session, u, sel string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pg, err := s.Page(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(u); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
	if err := pg.WaitLoad(); err != nil {
		t.Fatal(err)
	}
	el, err := pg.Element(sel)
	if err != nil {
		t.Fatalf("%s on %s: %v", sel, u, err)
	}
	txt, err := el.Text()
	if err != nil {
		t.Fatal(err)
	}
	return txt
}

func noProcessLeft(t *testing.T, pids ...int) {
	t.Helper()
	for _, pid := range pids {
		if left := GroupProcesses(pid); len(left) > 0 {
			t.Errorf("processes of Chromium group %d still present: %v", pid, left)
		}
	}
}

// TestSessionLifecycle drives one user's session through idle expiry (profile kept), a crash, a reset
// asked while claimed (BUSY until released), and Close, with an injected clock.
func TestSessionLifecycle(t *testing.T) {
	clk := testenv.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p, rec := newTestPool(t, Config{IdleTTL: time.Minute, AllowLoopback: true, Now: clk.Now})
	srv := site(t)
	ctx := context.Background()

	s, err := p.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	first := rec.wait(t, EventStarted, "alice", "")
	if first.Restart || first.PID == 0 {
		t.Fatalf("first start: %+v", first)
	}
	info, err := os.Stat(p.cfg.DataDir + "/browser/alice")
	if err != nil || info.Mode().Perm() != 0o700 {
		t.Fatalf("profile directory: %v %v", info, err)
	}
	text(t, s, srv.URL+"/set?v=kept", "body")
	if got := text(t, s, srv.URL+"/cookie", "#c"); got != "cookie=kept" {
		t.Fatalf("cookie before expiry: %q", got)
	}

	// Claimed sessions are never idle.
	clk.Advance(2 * time.Minute)
	p.Reap()
	if !s.Alive() {
		t.Fatal("a claimed session was reaped")
	}
	s.Release()
	s.Release() // a second release of one claim does nothing
	clk.Advance(59 * time.Second)
	p.Reap()
	if !s.Alive() {
		t.Fatal("reaped before its TTL")
	}
	clk.Advance(time.Second)
	p.Reap()
	stopped := rec.wait(t, EventStopped, "alice", ReasonIdle)
	noProcessLeft(t, stopped.PID)
	if len(p.PIDs()) != 0 {
		t.Fatalf("running after expiry: %v", p.PIDs())
	}

	// Respawn: the profile (and its persistent cookie) is intact.
	s, err = p.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	second := rec.wait(t, EventStarted, "alice", "")
	if second.PID == first.PID {
		t.Fatal("no new Chromium after expiry")
	}
	if got := text(t, s, srv.URL+"/cookie", "#c"); got != "cookie=kept" {
		t.Fatalf("cookie after respawn: %q", got)
	}

	// A crash is noticed, reported, and the next Acquire restarts cleanly.
	s.Release()
	if err := syscall.Kill(second.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, EventStopped, "alice", ReasonCrashed)
	noProcessLeft(t, second.PID)
	s, err = p.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	third := rec.wait(t, EventStarted, "alice", "")
	if !third.Restart {
		t.Fatalf("start after a crash is not a restart: %+v", third)
	}

	// Reset while claimed: BUSY, pending; Acquire BUSY too; the release runs it.
	if err := p.Reset(ctx, "alice"); !errors.Is(err, ErrBusy) {
		t.Fatalf("reset while claimed: %v, want ErrBusy", err)
	}
	if _, err := p.Acquire(ctx, "alice"); !errors.Is(err, ErrBusy) {
		t.Fatalf("acquire with a reset pending: %v, want ErrBusy", err)
	}
	s.Release()
	reset := rec.wait(t, EventReset, "alice", "")
	noProcessLeft(t, reset.PID)
	if _, err := os.Stat(p.cfg.DataDir + "/browser/alice"); !os.IsNotExist(err) {
		t.Fatalf("profile not wiped: %v", err)
	}
	s, err = p.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, s, srv.URL+"/cookie", "#c"); got != "cookie=none" {
		t.Fatalf("cookie after reset: %q", got)
	}
	last := s.PID()
	s.Release()

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, EventStopped, "alice", ReasonShutdown)
	noProcessLeft(t, first.PID, second.PID, third.PID, last)
	if left := chromiumChildren(); len(left) > 0 {
		t.Errorf("Chromium children (crash handlers) left after Close: %v", left)
	}
	if _, err := p.Acquire(ctx, "alice"); !errors.Is(err, ErrClosed) {
		t.Fatalf("acquire after close: %v", err)
	}
}

// TestBusyLimitIsolation: BUSY while a spawn is in flight (for that user only), ErrLimit at MaxSessions,
// two users' profiles isolated, and nothing left after Close.
func TestBusyLimitIsolation(t *testing.T) {
	p, rec := newTestPool(t, Config{MaxSessions: 2, AllowLoopback: true})
	srv := site(t)
	ctx := context.Background()

	entered, proceed := make(chan struct{}), make(chan struct{})
	p.beforeStart = func(user string) {
		if user == "bob" {
			close(entered)
			<-proceed
		}
	}
	type result struct {
		s   *Session
		err error
	}
	bobc := make(chan result, 1)
	go func() {
		s, err := p.Acquire(ctx, "bob")
		bobc <- result{s, err}
	}()
	<-entered
	if _, err := p.Acquire(ctx, "bob"); !errors.Is(err, ErrBusy) {
		t.Fatalf("acquire during a spawn: %v, want ErrBusy", err)
	}
	if err := p.Reset(ctx, "bob"); !errors.Is(err, ErrBusy) {
		t.Fatalf("reset during a spawn: %v, want ErrBusy", err)
	}
	// Another user is not held up, and takes the second slot.
	alice, err := p.Acquire(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Acquire(ctx, "carol"); !errors.Is(err, ErrLimit) {
		t.Fatalf("third session: %v, want ErrLimit", err)
	}
	close(proceed)
	r := <-bobc
	if r.err != nil {
		t.Fatal(r.err)
	}
	bob := r.s

	text(t, alice, srv.URL+"/set?v=alice", "body")
	if got := text(t, bob, srv.URL+"/cookie", "#c"); got != "cookie=none" {
		t.Fatalf("bob sees %q", got)
	}
	text(t, bob, srv.URL+"/set?v=bob", "body")
	if got := text(t, alice, srv.URL+"/cookie", "#c"); got != "cookie=alice" {
		t.Fatalf("alice sees %q", got)
	}
	if alice.PID() == bob.PID() {
		t.Fatal("two users share one Chromium")
	}

	// Pages over MaxPages (default 4) are closed, the one the tools drive kept.
	current, err := bob.Page(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		if _, err := bob.Browser().Page(proto.TargetCreateTarget{}); err != nil {
			t.Fatal(err)
		}
	}
	again, err := bob.Page(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if again.TargetID != current.TargetID {
		t.Fatal("the current page changed when extra pages were closed")
	}
	// Closing a target is asynchronous: wait for Chromium to list the pages left.
	for deadline := time.Now().Add(30 * time.Second); ; {
		pages, err := bob.Browser().Pages()
		if err != nil {
			t.Fatal(err)
		}
		if len(pages) == DefaultMaxPages {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d pages open after the limit was applied, want %d", len(pages), DefaultMaxPages)
		}
		time.Sleep(20 * time.Millisecond)
	}
	pids := []int{alice.PID(), bob.PID()}

	// BUSY while a reset runs: for Acquire and for another Reset.
	alice.Release()
	wiping, wiped := make(chan struct{}), make(chan struct{})
	p.beforeWipe = func(string) { close(wiping); <-wiped }
	resetc := make(chan error, 1)
	go func() { resetc <- p.Reset(ctx, "alice") }()
	<-wiping
	if _, err := p.Acquire(ctx, "alice"); !errors.Is(err, ErrBusy) {
		t.Fatalf("acquire during a reset: %v, want ErrBusy", err)
	}
	if err := p.Reset(ctx, "alice"); !errors.Is(err, ErrBusy) {
		t.Fatalf("reset during a reset: %v, want ErrBusy", err)
	}
	close(wiped)
	if err := <-resetc; err != nil {
		t.Fatal(err)
	}
	rec.wait(t, EventReset, "alice", "")

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	rec.wait(t, EventStopped, "bob", ReasonShutdown)
	noProcessLeft(t, pids...)
	if left := chromiumChildren(); len(left) > 0 {
		t.Errorf("Chromium children (crash handlers) left after Close: %v", left)
	}
}

// TestContainment: without the loopback setting the browser cannot reach 127.0.0.1; with it, a page
// still cannot reach 169.254.169.254 (navigation, fetch, image).
func TestContainment(t *testing.T) {
	srv := site(t)
	ctx := context.Background()

	t.Run("loopback refused by default", func(t *testing.T) {
		p, rec := newTestPool(t, Config{})
		s, err := p.Acquire(ctx, "dave")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		got := text(t, s, srv.URL+"/cookie", "body")
		if !strings.Contains(got, "Workbench refused this request") {
			t.Fatalf("127.0.0.1 reached without the dev setting: %q", got)
		}
		refused, _ := s.Refusals(0)
		if len(refused) == 0 || hostOnly(refused[0].Host) != "127.0.0.1" {
			t.Fatalf("refusals: %+v", refused)
		}

		// Over its memory limit, the session is closed at the next check, claimed or not.
		p.cfg.MemoryLimitBytes = 1 << 20
		pid := s.PID()
		p.Reap()
		if ev := rec.wait(t, EventStopped, "dave", ReasonMemoryLimit); ev.MemoryBytes <= 1<<20 {
			t.Fatalf("stopped for memory at %d bytes", ev.MemoryBytes)
		}
		noProcessLeft(t, pid)
	})
	t.Run("metadata refused always", func(t *testing.T) {
		p, _ := newTestPool(t, Config{AllowLoopback: true})
		s, err := p.Acquire(ctx, "erin")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Release()
		pg, err := s.Page(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := pg.Navigate(srv.URL + "/reach?target=http://169.254.169.254"); err != nil {
			t.Fatal(err)
		}
		el, err := pg.Timeout(30*time.Second).ElementR("#r", "reached|failed")
		if err != nil {
			t.Fatal(err)
		}
		if got := el.MustText(); got != "failed" && !strings.Contains(got, "Workbench refused") {
			t.Fatalf("the page reached the metadata address: %q", got)
		}
		refused, _ := s.Refusals(0)
		found := false
		for _, r := range refused {
			found = found || hostOnly(r.Host) == "169.254.169.254"
		}
		if !found {
			t.Fatalf("no refusal of 169.254.169.254 recorded: %+v", refused)
		}
	})
}
