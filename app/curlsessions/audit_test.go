package curlsessions

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/plugins"
)

type noCatalog struct{}

func (noCatalog) Integration(string) (*plugins.Integration, bool) { return nil, false }

type noCreds struct{}

func (noCreds) Access(context.Context, uuid.UUID, *plugins.Integration, string) (connections.Access, error) {
	return connections.Access{}, errors.New("not used")
}

type noTokens struct{}

func (noTokens) Issue(Grant) (string, error) { return "", errors.New("not used") }

// switched is the real store behind a switch: while down, every append fails as a database outage
// would; appends counts the attempts that reached the store.
type switched struct {
	next    Appender
	down    atomic.Bool
	appends atomic.Int32
}

func (s *switched) Append(ctx context.Context, stream string, expected eventstore.ExpectedVersion, events ...eventstore.EventData) (eventstore.Position, error) {
	if s.down.Load() {
		return eventstore.Position{}, errors.New("connect: connection refused")
	}
	s.appends.Add(1)
	return s.next.Append(ctx, stream, expected, events...)
}

func sqliteStore(t *testing.T) *sqlite.Store {
	t.Helper()
	return testenv.OpenSQLite(t).Store
}

func newService(t *testing.T, store Appender, queue int) *Service {
	t.Helper()
	s, err := New(Options{Catalog: noCatalog{}, Credentials: noCreds{}, Store: store, Tokens: noTokens{}, PublicURL: "https://wb.example", AuditQueue: queue})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var session, user = uuid.New(), uuid.New()

func outcome(path string) curlsession.RequestProxied {
	return curlsession.RequestProxied{RequestID: uuid.New(), SessionID: session, UserID: user, Integration: "keyed", Method: "GET", Path: path, Status: 200, At: time.Now()}
}

// stream lists the session stream's event types, in order.
func stream(t *testing.T, store eventstore.Store) []string {
	t.Helper()
	envs, err := store.Load(context.Background(), curlsession.SessionStreamName(session), 1)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, env := range envs {
		out = append(out, env.Type)
	}
	return out
}

// Forwarded and Refused return only once their record is in the session's stream, and return the
// log's error when it cannot take it (the proxy then sends nothing and answers 503).
func TestDurableRecordsBeforeTheyReturn(t *testing.T) {
	store := sqliteStore(t)
	sw := &switched{next: store}
	s := newService(t, sw, 0)
	ctx := context.Background()
	fwd := curlsession.RequestForwarded{RequestID: uuid.New(), SessionID: session, UserID: user, Integration: "keyed", Method: "PUT", Path: "/x", At: time.Now()}
	if err := s.Forwarded(ctx, fwd); err != nil {
		t.Fatal(err)
	}
	refused := outcome("/..")
	refused.Status, refused.ErrorCode = 400, "BAD_PATH"
	if err := s.Refused(ctx, refused); err != nil {
		t.Fatal(err)
	}
	if got := stream(t, store); len(got) != 2 || got[0] != curlsession.TypeRequestForwarded || got[1] != curlsession.TypeRequestProxied {
		t.Fatalf("stream %v", got)
	}
	// Time-ordered event ids: a record lands at the end of the event id index, not on a random page.
	// (An outcome record takes its request's id, which the proxy mints as a UUIDv7.)
	envs, err := store.Load(ctx, curlsession.SessionStreamName(session), 1)
	if err != nil {
		t.Fatal(err)
	}
	if envs[0].ID.Version() != 7 || envs[1].ID != refused.RequestID {
		t.Fatalf("event ids %s, %s: want a UUIDv7, then the request id %s", envs[0].ID, envs[1].ID, refused.RequestID)
	}
	sw.down.Store(true)
	if err := s.Forwarded(ctx, fwd); err == nil {
		t.Fatal("Forwarded succeeded while the log was down")
	}
	if err := s.Refused(ctx, refused); err == nil {
		t.Fatal("Refused succeeded while the log was down")
	}
	// An incomplete record is refused before it reaches the log.
	if err := s.Forwarded(ctx, curlsession.RequestForwarded{SessionID: session}); err == nil {
		t.Fatal("an incomplete RequestForwarded was accepted")
	}
}

// A full outcome queue makes Proxied append the record itself before it returns; Run, told to stop,
// still writes everything queued before it returns.
func TestOutcomesAreQueuedThenDrained(t *testing.T) {
	store := sqliteStore(t)
	sw := &switched{next: store}
	s := newService(t, sw, 2)
	ctx := context.Background()
	for _, p := range []string{"/a", "/b"} {
		s.Proxied(ctx, outcome(p))
	}
	if n := sw.appends.Load(); n != 0 {
		t.Fatalf("%d appends for queued outcomes", n)
	}
	s.Proxied(ctx, outcome("/c")) // the queue is full: appended here
	if got := stream(t, store); len(got) != 1 {
		t.Fatalf("after a full queue: stream %v, want the one record appended by Proxied", got)
	}
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.Run(stopped); err != nil {
		t.Fatal(err)
	}
	if got := stream(t, store); len(got) != 3 {
		t.Fatalf("after Run: stream %v, want 3 records", got)
	}
}

// A queued outcome whose append fails is retried until the log takes it.
func TestQueuedOutcomeSurvivesAnOutage(t *testing.T) {
	store := sqliteStore(t)
	sw := &switched{next: store}
	sw.down.Store(true)
	s := newService(t, sw, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	s.Proxied(ctx, outcome("/caught"))
	time.Sleep(700 * time.Millisecond) // past three attempts (100 + 200 ms apart)
	sw.down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for len(stream(t, store)) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	<-done
	if got := stream(t, store); len(got) != 1 {
		t.Fatalf("stream %v, want the outcome once", got)
	}
}
