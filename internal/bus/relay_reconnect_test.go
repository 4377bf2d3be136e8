package bus_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/bus"
)

// natsServer is a nats-server of the test's own, which it may stop and start (the shared one is
// never restarted). Its JetStream store survives a restart, like a real deployment's.
type natsServer struct {
	t     *testing.T
	bin   string
	port  int
	store string
	cmd   *exec.Cmd
	done  chan struct{}
}

func newNATSServer(t *testing.T) *natsServer {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		bin = "/usr/sbin/nats-server"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("nats-server is not installed: %v", err)
		}
		t.Skipf("nats-server is not installed: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &natsServer{t: t, bin: bin, port: port, store: t.TempDir()}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) url() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

func (s *natsServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(s.bin, "-js", "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-sd", s.store)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start nats-server: %v", err)
	}
	done := make(chan struct{})
	s.done = done
	go func(cmd *exec.Cmd) { _ = cmd.Wait(); close(done) }(s.cmd)
	deadline := time.Now().Add(20 * time.Second)
	for {
		nc, err := nats.Connect(s.url(), nats.Timeout(time.Second))
		if err == nil {
			var js nats.JetStreamContext
			if js, err = nc.JetStream(); err == nil {
				_, err = js.AccountInfo()
			}
			nc.Close()
		}
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the private nats-server did not answer with JetStream within 20s: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *natsServer) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// failures signals each time the relay logs that a try failed.
type failures struct {
	slog.Handler
	seen chan struct{}
}

func (f failures) Handle(ctx context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "relay interrupted") {
		select {
		case f.seen <- struct{}{}:
		default:
		}
	}
	return nil
}

func (f failures) Enabled(context.Context, slog.Level) bool { return true }
func (f failures) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f failures) WithGroup(string) slog.Handler            { return f }

// TestRelayResumesWhenNATSReconnects: an event committed while NATS is down reaches a subscriber
// soon after the server is back, although the relay's backoff after its failed publish is far
// longer: the reconnection ends the backoff.
func TestRelayResumesWhenNATSReconnects(t *testing.T) {
	srv := newNATSServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	topic := uniqueTopic(t)
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	pub := open(t, ctx, srv.url(), nil)
	replica := open(t, ctx, srv.url(), nil)
	c := newCollector()
	if _, err := replica.Subscribe(ctx, topic, c.handle); err != nil {
		t.Fatal(err)
	}
	failed := failures{Handler: slog.DiscardHandler, seen: make(chan struct{}, 1)}
	r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: pub, Topic: topic,
		Checkpoint: bus.NewMemoryCheckpoint(eventstore.Start), Backoff: 10 * time.Minute, Logger: slog.New(failed)})
	if err != nil {
		t.Fatal(err)
	}
	runRelay(t, ctx, r)
	appendEvents(t, ctx, store, 1, 1, 0)
	c.wait(t, 1)

	srv.stop()
	appendEvents(t, ctx, store, 1, 1, 1)
	select {
	case <-failed.seen:
	case <-time.After(30 * time.Second):
		t.Fatal("the relay did not report a failed publish within 30s of NATS stopping")
	}
	srv.start()
	got := c.wait(t, 2) // 30s at most, far below the relay's 10-minute backoff
	want := readLog(t, ctx, store)
	if len(got) != 2 || got[1].ID != want[1].ID {
		t.Fatalf("received %d events, the second %v; want the log's %v", len(got), got[len(got)-1].ID, want[1].ID)
	}
}
