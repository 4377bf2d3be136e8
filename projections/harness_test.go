package projections_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// backend is an event store and a migrated relational database for read models.
type backend struct {
	dialect migrations.Dialect
	store   eventstore.Store
	db      *sql.DB
}

// backends names every backend the tests run on; PostgreSQL skips when it is not configured.
var backends = []struct {
	name string
	open func(testing.TB) backend
}{
	{"sqlite", openSQLite},
	{"postgres", openPostgres},
}

func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) { f(t, be.open(t)) })
	}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// openSQLite returns a fresh SQLite file (WAL, durable commits) holding both the events, in the
// group-committed SQLite store, and the read models.
func openSQLite(t testing.TB) backend { return openNode(t, testenv.SQLite) }

// openPostgres returns a fresh database of the test's own on the shared PostgreSQL server (skipped
// without WORKBENCH_TEST_POSTGRES_URL), holding the events and the read models.
func openPostgres(t testing.TB) backend { return openNode(t, testenv.Postgres) }

func openNode(t testing.TB, on testenv.Backend) backend {
	t.Helper()
	n := testenv.Open(t, on)
	return backend{dialect: n.Dialect, store: n.Store, db: n.DB}
}

// ledger returns a Ledger named name with its tables created in b.
func (b backend) ledger(t testing.TB, name string) *projectiontest.Ledger {
	t.Helper()
	l, err := projectiontest.NewLedger(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CreateTables(testCtx(t), b.db); err != nil {
		t.Fatal(err)
	}
	return l
}

func (b backend) runner(t testing.TB, opts *projections.Options, ps ...projections.Projection) *projections.Runner {
	t.Helper()
	if opts == nil {
		opts = &projections.Options{}
	}
	opts.Projections = ps
	if opts.PollInterval == 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	r, err := projections.NewRunner(b.store, b.db, b.dialect, opts)
	if err != nil {
		t.Fatalf("NewRunner: %v", err)
	}
	return r
}

// start runs r until the test ends or the returned stop is called; stop waits for Run to return and
// reports its error.
func start(t testing.TB, r *projections.Runner) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				err = fmt.Errorf("Run did not return within a minute of being cancelled")
			}
		})
		return err
	}
	t.Cleanup(func() { stop() })
	return stop
}

// ledgerWorkload appends n movements over a few accounts, perAppend events per append on one stream
// per account, from `appenders` goroutines, and returns the balances they imply and the position of
// the last event.
type workload struct {
	mu       sync.Mutex
	balances map[string]int64
	count    int
	last     eventstore.Position
}

func appendMovements(ctx context.Context, t testing.TB, store eventstore.Store, w *workload, n, perAppend, appenders int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, appenders)
	per := n / appenders
	for a := range appenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			account := fmt.Sprintf("acct-%d", a)
			for done := 0; done < per; {
				k := min(perAppend, per-done)
				evs := make([]eventstore.EventData, k)
				var sum int64
				for i := range evs {
					amount := int64(done + i + 1)
					if (done+i)%3 == 2 {
						evs[i] = projectiontest.Withdraw(account, amount)
						sum -= amount
					} else {
						evs[i] = projectiontest.Deposit(account, amount)
						sum += amount
					}
				}
				pos, err := store.Append(ctx, "account-"+account, eventstore.Any, evs...)
				if err != nil {
					errs <- err
					return
				}
				w.mu.Lock()
				if w.balances == nil {
					w.balances = map[string]int64{}
				}
				w.balances[account] += sum
				w.count += k
				if w.last.Less(pos) {
					w.last = pos
				}
				w.mu.Unlock()
				done += k
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("append: %v", err)
	}
}

// checkLedger asserts that every appended event was applied exactly once and the balances are right.
func checkLedger(ctx context.Context, t *testing.T, db *sql.DB, name string, w *workload) {
	t.Helper()
	var rows, total, worst int64
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(applications), 0), COALESCE(MAX(applications), 0) FROM `+name+`_applied`).Scan(&rows, &total, &worst); err != nil {
		t.Fatal(err)
	}
	if rows != int64(w.count) || total != int64(w.count) || worst > 1 {
		t.Errorf("%s: %d distinct events applied %d times (worst %d times each), want %d events once each", name, rows, total, worst, w.count)
	}
	got := map[string]int64{}
	rs, err := db.QueryContext(ctx, `SELECT account, balance FROM `+name+`_accounts`)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var a string
		var bal int64
		if err := rs.Scan(&a, &bal); err != nil {
			t.Fatal(err)
		}
		got[a] = bal
	}
	for a, want := range w.balances {
		if got[a] != want {
			t.Errorf("%s: balance of %s = %d, want %d", name, a, got[a], want)
		}
	}
	if len(got) != len(w.balances) {
		t.Errorf("%s: %d accounts, want %d", name, len(got), len(w.balances))
	}
}

// metric returns the value of the named metric for the projection label (empty: no label) in reg.
func metric(t testing.TB, reg *prometheus.Registry, name, projection string) (float64, bool) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			label := ""
			for _, lp := range m.GetLabel() {
				if lp.GetName() == "projection" {
					label = lp.GetValue()
				}
			}
			if label != projection {
				continue
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			}
		}
	}
	return 0, false
}

// eventually polls cond every 10ms until it holds or 30s pass.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
