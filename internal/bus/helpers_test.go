package bus_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/testenv"
)

// noLeaks fails the test when goroutines started during it are still running once every cleanup
// registered after it has run. Call it first in a test, and do not combine it with t.Parallel.
func noLeaks(t *testing.T) {
	t.Helper()
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				t.Errorf("goroutines leaked: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:n])
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// natsURL returns the NATS server to test against (WORKBENCH_TEST_NATS_URL, or the local default),
// skipping the test when nothing listens there.
func natsURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv("WORKBENCH_TEST_NATS_URL")
	if u == "" {
		u = "nats://127.0.0.1:4222"
	}
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatalf("WORKBENCH_TEST_NATS_URL %q: %v", u, err)
	}
	c, err := net.DialTimeout("tcp", parsed.Host, time.Second)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("NATS is not reachable at %s in CI (.ci/run starts it): %v", u, err)
		}
		t.Skipf("NATS is not reachable at %s (%v); skipping NATS test", u, err)
	}
	c.Close()
	return u
}

// uniqueTopic gives each test its own topic, so that its NATS stream and subject, or its SQL table,
// never collide with another run's.
func uniqueTopic(t *testing.T) string {
	return "test." + strings.ReplaceAll(uuid.NewString(), "-", "")[:12] + ".events"
}

// dropNATSStream deletes the stream a test's topic created, when the test ends.
func dropNATSStream(t *testing.T, natsURL, topic string) {
	t.Cleanup(func() {
		nc, err := nats.Connect(natsURL)
		if err != nil {
			t.Logf("drop stream: %v", err)
			return
		}
		defer nc.Close()
		js, err := nc.JetStream()
		if err != nil {
			return
		}
		name := strings.ReplaceAll(topic, ".", "_")
		if err := js.DeleteStream(name); err != nil {
			t.Logf("drop stream %s: %v", name, err)
		}
	})
}

// backend is one BUS_URL to run the shared tests against.
type backend struct {
	name string
	// url returns the BUS_URL for topic, skipping when the transport is not available.
	url func(t *testing.T, topic string) string
	// shared: the transport reaches other processes, so a second Bus stands for a second replica.
	shared bool
}

var backends = []backend{
	{name: "gochannel", url: func(*testing.T, string) string { return "" }},
	{name: "nats", shared: true, url: func(t *testing.T, topic string) string {
		u := natsURL(t)
		dropNATSStream(t, u, topic)
		return u
	}},
	{name: "postgres", shared: true, url: func(t *testing.T, _ string) string { return testenv.PostgresURL(t) }},
}

func open(t *testing.T, ctx context.Context, busURL string, opts *bus.Options) *bus.Bus {
	t.Helper()
	if opts == nil {
		opts = &bus.Options{}
	}
	if opts.RetryDelay == 0 {
		opts.RetryDelay = 50 * time.Millisecond
	}
	b, err := bus.Open(ctx, busURL, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

// envelopes makes n envelopes spread over streams, numbered from first (positions first+1, …).
func envelopes(n, streams, first int) []eventstore.Envelope {
	out := make([]eventstore.Envelope, n)
	for i := range out {
		k := first + i
		out[i] = eventstore.Envelope{
			ID:            uuid.New(),
			Stream:        fmt.Sprintf("thing-%d", k%streams),
			Version:       int64(k/streams) + 1,
			Position:      eventstore.Position{Commit: uint64(k + 1), Prepare: uint64(k + 1)},
			Type:          "thing.happened",
			SchemaVersion: 1,
			Data:          json.RawMessage(fmt.Sprintf(`{"n":%d}`, k)),
			Metadata:      eventstore.Metadata{Actor: "tester", CorrelationID: "c-1", Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)},
		}
	}
	return out
}

// collector records what a subscription delivers: everything (raw) and each event once (deduped).
type collector struct {
	dedup *bus.Dedup
	mu    sync.Mutex
	raw   int
	got   []eventstore.Envelope
	more  chan struct{}
	// failOnce, when set, makes the first delivery of that event fail.
	failOnce uuid.UUID
	failed   bool
}

func newCollector() *collector {
	return &collector{dedup: bus.NewDedup(0), more: make(chan struct{}, 1)}
}

func (c *collector) handle(ctx context.Context, env eventstore.Envelope) error {
	c.mu.Lock()
	c.raw++
	if env.ID == c.failOnce && !c.failed {
		c.failed = true
		c.mu.Unlock()
		return fmt.Errorf("handler fails on %s once", env.ID)
	}
	c.mu.Unlock()
	return c.dedup.Handler(func(_ context.Context, env eventstore.Envelope) error {
		c.mu.Lock()
		c.got = append(c.got, env)
		c.mu.Unlock()
		select {
		case c.more <- struct{}{}:
		default:
		}
		return nil
	})(ctx, env)
}

// wait returns the de-duplicated events once there are n, failing the test after a timeout.
func (c *collector) wait(t *testing.T, n int) []eventstore.Envelope {
	t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		got := append([]eventstore.Envelope(nil), c.got...)
		c.mu.Unlock()
		if len(got) >= n {
			return got
		}
		select {
		case <-c.more:
		case <-deadline.C:
			t.Fatalf("received %d distinct events, want %d", len(got), n)
		}
	}
}

func (c *collector) counts() (raw, distinct int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.raw, len(c.got)
}

// checkInOrder fails when the events of any one stream arrive out of version order or with a gap.
func checkInOrder(t *testing.T, got []eventstore.Envelope) {
	t.Helper()
	next := map[string]int64{}
	for _, env := range got {
		want := next[env.Stream] + 1
		if env.Version != want {
			t.Errorf("stream %s: got version %d, want %d (order broken)", env.Stream, env.Version, want)
		}
		next[env.Stream] = env.Version
	}
}
