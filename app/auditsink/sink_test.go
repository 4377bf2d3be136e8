package auditsink_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/app/auditsink"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/ssrf"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

var secret = []byte("0123456789abcdef-test-secret")

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// backend is a migrated database and its event store; dsn is what a child process opens (a SQLite
// path or a postgres:// URL).
type backend struct {
	name  string
	db    *sql.DB
	store eventstore.Store
	dsn   string
}

func openSQLiteBackend(t *testing.T) backend {
	sq := testenv.OpenSQLite(t)
	return backend{"sqlite", sq.DB, sq.Store, sqDBPath(t, sq.DB)}
}

func openPostgresBackend(t *testing.T) backend {
	url := testenv.PostgresURL(t)
	db, store := openPostgres(t, url)
	return backend{"postgres", db, store, url}
}

// openPostgres opens url migrated, and its event store, closed when the test ends.
func openPostgres(t testing.TB, url string) (*sql.DB, eventstore.Store) {
	ctx := context.Background()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	store, err := postgres.New(ctx, pool, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return db, store
}

// forEachBackend runs f on SQLite, and on PostgreSQL when WORKBENCH_TEST_POSTGRES_URL is set.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	t.Run("sqlite", func(t *testing.T) { f(t, openSQLiteBackend(t)) })
	t.Run("postgres", func(t *testing.T) { f(t, openPostgresBackend(t)) })
}

// expected is every record the sink must deliver, event ids in log order, once the log shows every
// committed event.
func expected(t *testing.T, db *sql.DB, store eventstore.Store) []uuid.UUID {
	t.Helper()
	ids, _ := expectedThrough(t, db, store)
	return ids
}

// expectedThrough is expected and the position of the log's last event.
func expectedThrough(t *testing.T, db *sql.DB, store eventstore.Store) ([]uuid.UUID, eventstore.Position) {
	t.Helper()
	testenv.Settle(t, db, store)
	dec := auditrm.NewDecoder()
	var ids []uuid.UUID
	from := eventstore.Start
	for {
		envs, err := store.ReadAll(testCtx(t), from, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			return ids, from
		}
		for _, env := range envs {
			if rec, ok, err := dec.Decode(env); err != nil {
				t.Fatal(err)
			} else if ok {
				ids = append(ids, rec.EventID)
			}
		}
		from = envs[len(envs)-1].Position
	}
}

// receiver is a real HTTP webhook endpoint on 127.0.0.1 that checks every batch's HMAC signature and
// keeps what it was sent, in arrival order. refuse answers the first batches 503; hold, when set, is
// called with each batch's number before it answers (and may block).
type receiver struct {
	srv *httptest.Server

	mu      sync.Mutex
	batches []auditsink.Batch
	bad     int
	refuse  int
	hold    func(n int)
	got     chan struct{}
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{got: make(chan struct{}, 1)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if err := auditsink.Verify(secret, r.Header.Get(auditsink.HeaderSignature), body, time.Now(), 5*time.Minute); err != nil {
			rc.mu.Lock()
			rc.bad++
			rc.mu.Unlock()
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var b auditsink.Batch
		if err := json.Unmarshal(body, &b); err != nil || r.Header.Get(auditsink.HeaderBatch) != b.ID {
			http.Error(w, "bad batch", http.StatusBadRequest)
			return
		}
		rc.mu.Lock()
		if rc.refuse > 0 {
			rc.refuse--
			rc.mu.Unlock()
			http.Error(w, "not now", http.StatusServiceUnavailable)
			return
		}
		rc.batches = append(rc.batches, b)
		n, hold := len(rc.batches), rc.hold
		rc.mu.Unlock()
		select {
		case rc.got <- struct{}{}:
		default:
		}
		if hold != nil {
			hold(n)
		}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// ids returns every record id received, duplicates included, in arrival order.
func (rc *receiver) ids() []uuid.UUID {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []uuid.UUID
	for _, b := range rc.batches {
		for _, r := range b.Records {
			out = append(out, r.EventID)
		}
	}
	return out
}

// waitFor waits until the receiver holds every id of want.
func (rc *receiver) waitFor(t *testing.T, ctx context.Context, want []uuid.UUID) {
	t.Helper()
	for {
		seen := map[uuid.UUID]bool{}
		for _, id := range rc.ids() {
			seen[id] = true
		}
		all := true
		for _, id := range want {
			all = all && seen[id]
		}
		if all {
			return
		}
		select {
		case <-rc.got:
		case <-ctx.Done():
			t.Fatalf("the receiver has %d of %d records", len(seen), len(want))
		}
	}
}

// checkOrdered: every wanted record arrived at least once, and the records deduplicated by id (first
// arrival) are exactly want, in log order.
func checkOrdered(t *testing.T, got, want []uuid.UUID) {
	t.Helper()
	seen := map[uuid.UUID]bool{}
	var firsts []uuid.UUID
	for _, id := range got {
		if !seen[id] {
			seen[id] = true
			firsts = append(firsts, id)
		}
	}
	if len(firsts) != len(want) {
		t.Fatalf("received %d distinct records, want %d", len(firsts), len(want))
	}
	for i := range want {
		if firsts[i] != want[i] {
			t.Fatalf("record %d: got %s, want %s (out of order)", i, firsts[i], want[i])
		}
	}
}

func TestWebhookDeliversEverythingInOrder(t *testing.T) {
	forEachBackend(t, testWebhookDelivers)
}

func testWebhookDelivers(t *testing.T, sq backend) {
	ctx := testCtx(t)
	audittest.Build(ctx, t, sq.store, testenv.Vault(t, sq.db, sq.store))
	if _, err := audittest.AppendCurlSession(ctx, sq.store); err != nil {
		t.Fatal(err)
	}
	want, end := expectedThrough(t, sq.db, sq.store)
	rc := newReceiver(t)
	rc.mu.Lock()
	rc.refuse = 3 // the first three attempts fail: retried with backoff
	rc.mu.Unlock()
	wh, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: rc.srv.URL + "/siem", Secret: secret, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	sink, err := auditsink.New(auditsink.Options{Store: sq.store, DB: sq.db, Name: "webhook", Destination: wh, BatchSize: 4,
		PollInterval: 10 * time.Millisecond, RetryMin: time.Millisecond, RetryMax: 4 * time.Millisecond, Registerer: reg})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sink.Run(runCtx) }()
	rc.waitFor(t, ctx, want)
	// The checkpoint follows the last acknowledgement, and then the log's end: the sink has caught up
	// only once it is past the events after the last record too (until then its lag is the age of the
	// next one).
	for {
		if pos, n, err := auditsink.Checkpoint(ctx, sq.db, "webhook"); err != nil {
			t.Fatal(err)
		} else if n == int64(len(want)) && pos == end {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the checkpoint never reached the last record")
		case <-time.After(5 * time.Millisecond):
		}
	}
	// A window that ended at the log's end but was full leaves the lag at its last event's age until
	// the next read finds nothing more: wait for that read (a poll later).
	for sink.Lag() != 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the lag stayed %v s after the checkpoint reached the log's end", sink.Lag())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkOrdered(t, rc.ids(), want)
	if got := len(rc.ids()); got != len(want) {
		t.Errorf("delivered %d records without a crash, want exactly %d", got, len(want))
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.bad != 0 {
		t.Errorf("%d batches failed the signature check", rc.bad)
	}
	if got := metric(t, reg, "workbench_audit_sink_failures_total"); got != 3 {
		t.Errorf("failures_total = %v, want 3", got)
	}
	if got := metric(t, reg, "workbench_audit_sink_lag"); got != 0 {
		t.Errorf("lag after catching up = %v, want 0", got)
	}
	pos, n, err := auditsink.Checkpoint(ctx, sq.db, "webhook")
	if err != nil || n != int64(len(want)) || pos.IsZero() {
		t.Errorf("checkpoint = %s, %d, %v", pos, n, err)
	}
	for _, b := range rc.batches {
		for _, r := range b.Records {
			if r.UserID == audittest.Bob && r.Email != "bob@example.com" {
				t.Fatalf("a record of bob without his email: %+v", r)
			}
		}
	}
}

// metric returns the value of the named counter or gauge in reg.
func metric(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() == name {
			m := mf.GetMetric()[0]
			if m.GetGauge() != nil {
				return m.GetGauge().GetValue()
			}
			return m.GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

func TestWebhookURLRules(t *testing.T) {
	for _, c := range []struct {
		url      string
		loopback bool
		ok       bool
	}{
		{"https://siem.example.com/in", false, true},
		{"http://siem.example.com/in", false, false},
		{"http://127.0.0.1:9/in", false, false},
		{"http://127.0.0.1:9/in", true, true},
		{"http://siem.example.com/in", true, false},
		{"ftp://siem.example.com/", false, false},
		{"https://user:pw@siem.example.com/", false, false},
	} {
		_, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: c.url, Secret: secret, AllowLoopback: c.loopback})
		if (err == nil) != c.ok {
			t.Errorf("%s (loopback %v): err %v, want ok %v", c.url, c.loopback, err, c.ok)
		}
	}
	if _, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: "https://siem.example.com/", Secret: []byte("short")}); err == nil {
		t.Error("a short secret was accepted")
	}
	// Without the development allowance the dial itself refuses loopback (internal/ssrf), whatever the
	// URL says: an https URL naming 127.0.0.1 never connects.
	rc := newReceiver(t)
	u, _ := url.Parse(rc.srv.URL)
	wh, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: "https://" + u.Host + "/", Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Deliver(testCtx(t), auditsink.Batch{ID: "x"}); !errors.Is(err, ssrf.ErrForbiddenAddress) {
		t.Errorf("a dial to loopback was not refused: %v", err)
	}
	if len(rc.ids()) != 0 {
		t.Error("the receiver was reached")
	}
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"records":[]}`)
	h := auditsink.Sign(secret, now, body)
	if err := auditsink.Verify(secret, h, body, now, time.Minute); err != nil {
		t.Fatal(err)
	}
	if auditsink.Verify(secret, h, []byte(`{"records":[{}]}`), now, time.Minute) == nil {
		t.Error("a changed body verified")
	}
	if auditsink.Verify([]byte("another-secret-of-16"), h, body, now, time.Minute) == nil {
		t.Error("another secret verified")
	}
	if auditsink.Verify(secret, h, body, now.Add(time.Hour), time.Minute) == nil {
		t.Error("an old signature verified")
	}
}

// childEnv marks the re-executed test binary that runs the sink (TestSinkProcess).
const childEnv = "WORKBENCH_AUDITSINK_CHILD"

// TestSinkProcess is the sink as a process of its own, for TestKillMidDelivery: it runs only in the
// child that test starts (it returns at once otherwise) and follows the SQLite file it is given until
// it is killed.
func TestSinkProcess(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		return
	}
	ctx := context.Background()
	var db *sql.DB
	var store eventstore.Store
	if dsn := os.Getenv(childEnv + "_DB"); strings.HasPrefix(dsn, "postgres") {
		db, store = openPostgres(t, dsn)
	} else {
		var err error
		if db, err = sqlite.OpenDB(ctx, dsn); err != nil {
			t.Fatal(err)
		}
		if store, err = sqlite.New(db, nil); err != nil {
			t.Fatal(err)
		}
	}
	wh, err := auditsink.NewWebhook(auditsink.WebhookOptions{URL: os.Getenv(childEnv + "_URL"), Secret: secret, AllowLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	size, _ := strconv.Atoi(os.Getenv(childEnv + "_BATCH"))
	sink, err := auditsink.New(auditsink.Options{Store: store, DB: db, Name: "webhook", Destination: wh, BatchSize: size,
		PollInterval: 5 * time.Millisecond, RetryMin: time.Millisecond, RetryMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	_ = sink.Run(ctx) // until killed
}

// TestKillMidDelivery kills the sink's process (SIGKILL) while the receiver holds a batch unanswered,
// starts it again on the same database, and checks that every record arrived at least once, in log
// order, the batch in flight among them twice (the receiver deduplicates by event id).
func TestKillMidDelivery(t *testing.T) {
	forEachBackend(t, testKillMidDelivery)
}

func testKillMidDelivery(t *testing.T, sq backend) {
	ctx := testCtx(t)
	audittest.Build(ctx, t, sq.store, testenv.Vault(t, sq.db, sq.store))
	if err := audittest.AppendToolRuns(ctx, sq.store, audittest.Bob, audittest.Day1.Add(200*time.Hour), 300, 1); err != nil {
		t.Fatal(err)
	}
	want := expected(t, sq.db, sq.store)
	dbPath := sq.dsn

	rc := newReceiver(t)
	const killAt = 5
	inFlight := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	rc.mu.Lock() // the child's requests reach the handler through another process: no happens-before but the lock
	rc.hold = func(n int) {
		if n == killAt {
			once.Do(func() { close(inFlight) })
			<-release // answered only after the process that sent it is dead
		}
	}
	rc.mu.Unlock()
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSinkProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=1", childEnv+"_DB="+dbPath, childEnv+"_URL="+rc.srv.URL, childEnv+"_BATCH=10")
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	first := start()
	select {
	case <-inFlight:
	case <-ctx.Done():
		first.Process.Kill()
		t.Fatal("the sink never reached the batch to be killed in")
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	close(release)

	second := start()
	t.Cleanup(func() { second.Process.Kill(); second.Wait() })
	rc.waitFor(t, ctx, want)

	got := rc.ids()
	checkOrdered(t, got, want)
	if len(got) <= len(want) {
		t.Errorf("received %d records for %d: the batch in flight at the kill was not sent again", len(got), len(want))
	}
	rc.mu.Lock()
	killed := rc.batches[killAt-1]
	resent := 0
	for _, b := range rc.batches {
		if b.ID == killed.ID {
			resent++
		}
	}
	rc.mu.Unlock()
	if resent != 2 {
		t.Errorf("the batch in flight at the kill (%s) arrived %d times, want 2 (same id, for deduplication)", killed.ID, resent)
	}
}

// sqDBPath finds the file of the SQLite database testenv.OpenSQLite opened.
func sqDBPath(t *testing.T, db *sql.DB) string {
	t.Helper()
	var seq int
	var name, file string
	if err := db.QueryRow(`PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(file) {
		t.Fatalf("database file %q", file)
	}
	return file
}

// TestNATSDelivery sends the log's records to a JetStream subject and reads them back in order.
func TestNATSDelivery(t *testing.T) {
	natsURL := os.Getenv("WORKBENCH_TEST_NATS_URL")
	if natsURL == "" {
		natsURL = "nats://127.0.0.1:4222"
	}
	pu, _ := url.Parse(natsURL)
	if c, err := net.DialTimeout("tcp", pu.Host, time.Second); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("NATS is not reachable at %s in CI: %v", natsURL, err)
		}
		t.Skipf("NATS is not reachable at %s: %v", natsURL, err)
	} else {
		c.Close()
	}
	ctx := testCtx(t)
	sq := testenv.OpenSQLite(t)
	audittest.Build(ctx, t, sq.Store, testenv.Vault(t, sq.DB, sq.Store))
	want := expected(t, sq.DB, sq.Store)
	subject := "test.audit." + strings.ReplaceAll(uuid.NewString(), "-", "")[:12]
	dest, err := auditsink.NewNATS(ctx, natsURL, subject)
	if err != nil {
		t.Fatal(err)
	}
	defer dest.Close()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := nc.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.StreamNameBySubject(subject)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteStream(stream) })
	sink, err := auditsink.New(auditsink.Options{Store: sq.Store, DB: sq.DB, Name: "nats", Destination: dest, BatchSize: 5,
		PollInterval: 10 * time.Millisecond, RetryMin: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- sink.Run(runCtx) }()
	defer func() { cancel(); <-done }()
	sub, err := js.SubscribeSync(subject, nats.DeliverAll())
	if err != nil {
		t.Fatal(err)
	}
	var got []uuid.UUID
	for len(got) < len(want) {
		msg, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			t.Fatalf("after %d of %d records: %v", len(got), len(want), err)
		}
		var b auditsink.Batch
		if err := json.Unmarshal(msg.Data, &b); err != nil {
			t.Fatal(err)
		}
		if msg.Header.Get(nats.MsgIdHdr) != b.ID {
			t.Fatalf("message id %q, batch id %q", msg.Header.Get(nats.MsgIdHdr), b.ID)
		}
		for _, r := range b.Records {
			got = append(got, r.EventID)
		}
	}
	checkOrdered(t, got, want)
}
