package kurrent

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/EventStore/EventStore-Client-Go/v4/esdb"
	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/storetest"
)

// EnvVar names the KurrentDB server the shared suite runs against, e.g.
// esdb://admin:changeit@127.0.0.1:2113?tls=false. KurrentDB cannot run on Workbench's development
// machines or in CI, so the suite is skipped unless it is set.
const EnvVar = "WORKBENCH_TEST_KURRENTDB_URL"

// TestStore runs the shared storetest suite against a real server. Each store the suite opens gets a
// stream prefix of its own, so that it starts empty on a server whose $all is shared.
func TestStore(t *testing.T) {
	url := os.Getenv(EnvVar)
	if url == "" {
		t.Skipf("%s is not set: no KurrentDB server to run the storetest suite against (none can run on these machines); the mapping tests in this package run without one", EnvVar)
	}
	open := func(t *testing.T, prefix string) *Store {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s, err := Open(ctx, url, &Options{StreamPrefix: prefix})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	storetest.Run(t, storetest.Harness{
		Open: func(t *testing.T) eventstore.Store {
			return open(t, "wbtest-"+strings.ReplaceAll(uuid.NewString(), "-", "")[:12]+"-")
		},
		OpenPeer: func(t *testing.T, first eventstore.Store) eventstore.Store {
			return open(t, first.(*Store).prefix)
		},
		// KurrentDB de-duplicates event ids only for retries at the same stream position.
		PerStreamEventIDs: true,
	})
}

// unreachable returns a connection string for a port on loopback where nothing listens.
func unreachable(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "esdb://" + addr + "?tls=false&maxDiscoverAttempts=1&discoveryInterval=10"
}

// offlineStore returns a store whose client points at a port where nothing listens: enough for what
// the store decides before it talks to a server.
func offlineStore(t *testing.T) (*Store, *esdb.Client) {
	t.Helper()
	cfg, err := esdb.ParseConnectionString(unreachable(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = esdb.NoopLogging()
	client, err := esdb.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := New(client, &Options{StreamPrefix: "offline-"})
	t.Cleanup(func() { _ = s.Close() })
	return s, client
}

func event() eventstore.EventData {
	return eventstore.EventData{ID: uuid.New(), Type: "thing.happened", SchemaVersion: 1, Data: []byte(`{}`)}
}

// TestClosed: every call on a closed store fails with ErrClosed, before any network traffic.
func TestClosed(t *testing.T) {
	s, _ := offlineStore(t)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"append", func() error { _, err := s.Append(ctx, "s", eventstore.Any, event()); return err }},
		{"load", func() error { _, err := s.Load(ctx, "s", 1); return err }},
		{"read all", func() error { _, err := s.ReadAll(ctx, eventstore.Start, 10); return err }},
		{"subscribe", func() error {
			return s.Subscribe(ctx, eventstore.Start, func(eventstore.Envelope) error { return nil })
		}},
		{"close again", s.Close},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, eventstore.ErrClosed) {
				t.Errorf("%s on a closed store = %v, want ErrClosed", tc.name, err)
			}
		})
	}
}

// TestClientClosedUnderneath: when the client is closed behind the store's back, the client's own
// "connection closed" error maps to ErrClosed, its cause kept.
func TestClientClosedUnderneath(t *testing.T) {
	s, client := offlineStore(t)
	if err := client.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err := s.Append(ctx, "s", eventstore.Exact(3), event())
	if !errors.Is(err, eventstore.ErrClosed) || errors.Is(err, eventstore.ErrConflict) {
		t.Errorf("Append through a closed client = %v, want ErrClosed", err)
	}
	var esErr *esdb.Error
	if !errors.As(err, &esErr) || esErr.Code() != esdb.ErrorCodeConnectionClosed {
		t.Errorf("Append through a closed client = %v, want the client's error kept as the cause", err)
	}
	if _, err := s.Load(ctx, "s", 1); !errors.Is(err, eventstore.ErrClosed) {
		t.Errorf("Load through a closed client = %v, want ErrClosed", err)
	}
	if _, err := s.ReadAll(ctx, eventstore.Start, 5); !errors.Is(err, eventstore.ErrClosed) {
		t.Errorf("ReadAll through a closed client = %v, want ErrClosed", err)
	}
	err = s.Subscribe(ctx, eventstore.Start, func(eventstore.Envelope) error { return nil })
	if !errors.Is(err, eventstore.ErrClosed) {
		t.Errorf("Subscribe through a closed client = %v, want ErrClosed", err)
	}
}

// TestBadInputNeverReachesTheServer: bad appends are refused by the store itself, with input errors.
func TestBadInputNeverReachesTheServer(t *testing.T) {
	s, client := offlineStore(t)
	// With the client closed, anything that did reach for the server would fail with ErrClosed.
	_ = client.Close()
	ctx := context.Background()
	noType := event()
	noType.Type = ""
	badJSON := event()
	badJSON.Data = []byte(`{"a":`)
	dup := event()
	for _, tc := range []struct {
		name     string
		stream   string
		expected eventstore.ExpectedVersion
		events   []eventstore.EventData
	}{
		{"empty stream", "", eventstore.Any, []eventstore.EventData{event()}},
		{"no events", "s", eventstore.Any, nil},
		{"no type", "s", eventstore.Any, []eventstore.EventData{noType}},
		{"bad JSON", "s", eventstore.Any, []eventstore.EventData{event(), badJSON}},
		{"same id twice", "s", eventstore.Any, []eventstore.EventData{dup, dup}},
		{"expected below any", "s", eventstore.ExpectedVersion(-5), []eventstore.EventData{event()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, tc.stream, tc.expected, tc.events...)
			if err == nil || errors.Is(err, eventstore.ErrClosed) || errors.Is(err, eventstore.ErrConflict) {
				t.Errorf("Append = %v, want an input error", err)
			}
		})
	}
	if _, err := s.Load(ctx, "", 1); err == nil || errors.Is(err, eventstore.ErrClosed) {
		t.Errorf("Load of the empty stream name = %v, want an input error", err)
	}
	if got, err := s.ReadAll(ctx, eventstore.Start, 0); err != nil || len(got) != 0 {
		t.Errorf("ReadAll with limit 0 = %d events, %v; want none and no error", len(got), err)
	}
}

func TestOpen(t *testing.T) {
	t.Run("bad scheme", func(t *testing.T) {
		_, err := Open(context.Background(), "postgres://user:pw@localhost/db", nil)
		if err == nil || !strings.Contains(err.Error(), "postgres") {
			t.Errorf("Open with a postgres URL = %v, want an error naming the scheme", err)
		}
	})
	t.Run("system prefix", func(t *testing.T) {
		_, err := Open(context.Background(), "esdb://localhost:2113", &Options{StreamPrefix: "$wb-"})
		if err == nil || !strings.Contains(err.Error(), "$wb-") {
			t.Errorf("Open with a $ prefix = %v, want an error naming it", err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		_, err := Open(context.Background(), "kurrentdb://admin:secret@host:notaport", nil)
		if err == nil {
			t.Fatal("Open of a malformed connection string succeeded")
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("error %q shows the password", err)
		}
	})
	t.Run("nothing listening", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		s, err := Open(ctx, unreachable(t), &Options{Logger: slog.New(slog.DiscardHandler)})
		if err == nil {
			_ = s.Close()
			t.Fatal("Open succeeded with no server")
		}
		t.Logf("Open with no server: %v", err)
		if !strings.Contains(err.Error(), "connect to") {
			t.Errorf("Open with no server = %v, want a connection error", err)
		}
	})
}
