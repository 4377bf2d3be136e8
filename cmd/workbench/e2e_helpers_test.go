package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/config"
)

// testEncryptionKey is the ENCRYPTION_KEY of served instances on PostgreSQL (32 bytes, base64).
const testEncryptionKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// e2eServer is Main serving on a loopback listener whose address is also its SERVER_PUBLIC_URL, so
// claim links, OAuth callbacks and the Origin checks all name the server the test talks to.
type e2eServer struct {
	Base string
	M    *Main
	Env  map[string]string
	logs *syncBuffer
}

// e2eUser is a workbench user with a live API key.
type e2eUser struct {
	ID    uuid.UUID
	Email string
	Key   string
	KeyID uuid.UUID
}

// startE2E opens and serves Main on databaseURL (a SQLite path or a postgres:// URL) with env added to
// the environment; the server stops when the test ends. On failure the server's log is printed.
func startE2E(tb testing.TB, databaseURL string, env map[string]string, level slog.Level) *e2eServer {
	tb.Helper()
	return startE2EWith(tb, databaseURL, env, level, nil)
}

// startE2EWith is startE2E with configure, when not nil, applied to Main before it opens.
func startE2EWith(tb testing.TB, databaseURL string, env map[string]string, level slog.Level, configure func(*Main)) *e2eServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	vars := map[string]string{"DATABASE_URL": databaseURL, "SERVER_PUBLIC_URL": base}
	if strings.HasPrefix(databaseURL, "postgres") {
		vars["ENCRYPTION_KEY"] = testEncryptionKey
		// Otherwise ./data of the package directory, shared by every test running at the same time.
		vars["WORKBENCH_DATA_DIR"] = tb.TempDir()
		// Tests share one PostgreSQL server (max_connections 100) with the other packages' tests
		// running beside them: a small pool each, unless the test asks for more.
		vars["DATABASE_MAX_CONNS"] = "8"
	}
	for k, v := range env {
		vars[k] = v
	}
	cfg, err := config.FromEnv(envFunc(vars))
	if err != nil {
		ln.Close()
		tb.Fatal(err)
	}
	logs := &syncBuffer{}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level})))
	m.Listener = ln
	m.Getenv = envFunc(vars)
	if configure != nil {
		configure(m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Open(ctx); err != nil {
		cancel()
		m.Close()
		tb.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx) }()
	s := &e2eServer{Base: base, M: m, Env: vars, logs: logs}
	tb.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			tb.Errorf("Serve: %v", err)
		}
		if err := m.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
		if tb.Failed() {
			tb.Logf("server log (tail):\n%s", logs.tail(16<<10))
		}
	})
	s.waitReady(tb)
	return s
}

func (s *e2eServer) waitReady(tb testing.TB) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.Base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the server never became ready: %v", err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// user creates a user with a fresh API key and waits until the server's identity read model knows it.
func (s *e2eServer) user(tb testing.TB, email string) e2eUser {
	tb.Helper()
	ctx := context.Background()
	md := eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}
	u, _, _, err := s.M.Accounts.EnsureUser(ctx, email, "", md)
	if err != nil {
		tb.Fatal(err)
	}
	md.OnBehalfOf = u.ID.String()
	key, pos, err := s.M.Accounts.MintOrRotate(ctx, u.ID, md)
	if err != nil {
		tb.Fatal(err)
	}
	s.waitFor(tb, pos)
	return e2eUser{ID: u.ID, Email: u.Email, Key: key.Secret, KeyID: key.ID}
}

// waitFor blocks until every read model has applied the log up to pos.
func (s *e2eServer) waitFor(tb testing.TB, pos eventstore.Position) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := s.M.Runner.WaitFor(ctx, pos); err != nil {
		tb.Fatalf("read models never reached %v: %v", pos, err)
	}
}

// events returns every event of the log of type typ, in log order.
func (s *e2eServer) events(tb testing.TB, typ string) []eventstore.Envelope {
	tb.Helper()
	var out []eventstore.Envelope
	var from eventstore.Position
	for {
		page, err := s.M.Store.ReadAll(context.Background(), from, 1000)
		if err != nil {
			tb.Fatal(err)
		}
		for _, e := range page {
			if e.Type == typ {
				out = append(out, e)
			}
		}
		if len(page) < 1000 {
			return out
		}
		from = page[len(page)-1].Position
	}
}

// settledEvents is events once the log holds at least atLeast of them and two reads 50ms apart agree.
// On PostgreSQL a reader sees an event only once every older transaction has ended (that is what keeps
// readers from skipping a late commit), so an event committed a moment ago may not be readable yet.
func (s *e2eServer) settledEvents(tb testing.TB, typ string, atLeast int) []eventstore.Envelope {
	tb.Helper()
	deadline := time.Now().Add(15 * time.Second)
	prev := -1
	for {
		evs := s.events(tb, typ)
		if len(evs) >= atLeast && len(evs) == prev {
			return evs
		}
		if time.Now().After(deadline) {
			return evs
		}
		prev = len(evs)
		time.Sleep(50 * time.Millisecond)
	}
}

// eventsUntil follows the log from its start and returns the events of type typ as soon as complete
// says they are all there. An event committed a moment ago may not be readable yet on PostgreSQL (see
// settledEvents); the store's subscription delivers it the moment it is, so nothing is polled.
func (s *e2eServer) eventsUntil(tb testing.TB, typ string, complete func([]eventstore.Envelope) bool) []eventstore.Envelope {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var out []eventstore.Envelope
	enough := errors.New("enough")
	err := s.M.Store.Subscribe(ctx, eventstore.Start, func(env eventstore.Envelope) error {
		if env.Type != typ {
			return nil
		}
		out = append(out, env)
		if complete(out) {
			return enough
		}
		return nil
	})
	if !errors.Is(err, enough) {
		tb.Fatalf("the log never held the expected %s events (%d seen): %v", typ, len(out), err)
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (the server's logger).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) tail(n int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

var _ io.Writer = (*syncBuffer)(nil)
