package projections_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/projectiontest"
)

// The runner is stopped mid-stream over and over (its context cancelled from inside a batch, the
// nearest thing to a crash a test can do in-process) while events keep arriving; at the end every
// event has been applied exactly once.
func TestExactlyOnceAcrossRestarts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		ledger := b.ledger(t, "ledger")
		r := b.runner(t, &projections.Options{BatchSize: 40}, ledger)

		w := &workload{}
		appended := make(chan struct{})
		go func() {
			defer close(appended)
			appendMovements(ctx, t, b.store, w, 3000, 7, 6)
		}()

		var applied atomic.Int64
		killedMidStream := 0
		for round := range 8 {
			runCtx, cancel := context.WithCancel(ctx)
			killAt := applied.Load() + 100 + rand.Int64N(300)
			ledger.SetHook(func(ctx context.Context, env eventstore.Envelope) error {
				if applied.Add(1) == killAt {
					cancel() // "crash" in the middle of a batch
				}
				return nil
			})
			err := r.Run(runCtx)
			cancel()
			if err != nil {
				t.Fatalf("round %d: Run: %v", round, err)
			}
			st := r.Status()[0]
			if st.Err != nil {
				t.Fatalf("round %d: projection failed: %v", round, st.Err)
			}
			if applied.Load() >= killAt {
				killedMidStream++
			}
		}
		if killedMidStream == 0 {
			t.Fatalf("the runner was never stopped mid-stream; the test proves nothing")
		}
		<-appended
		ledger.SetHook(nil)
		stop := start(t, r)
		if err := r.WaitFor(ctx, w.last); err != nil {
			t.Fatalf("WaitFor: %v", err)
		}
		if err := stop(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		checkLedger(ctx, t, b.db, "ledger", w)
		t.Logf("stopped mid-stream %d times; %d applications attempted for %d events", killedMidStream, applied.Load(), w.count)
	})
}

// Two runners on one database (two replicas of the server) share the work without applying anything
// twice: the conditional checkpoint makes the loser of each race roll back.
func TestTwoRunnersOneDatabase(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		l1, l2 := b.ledger(t, "ledger"), b.ledger(t, "ledger")
		r1 := b.runner(t, &projections.Options{BatchSize: 25}, l1)
		r2 := b.runner(t, &projections.Options{BatchSize: 25}, l2)
		start(t, r1)
		start(t, r2)
		w := &workload{}
		appendMovements(ctx, t, b.store, w, 2000, 5, 8)
		for _, r := range []*projections.Runner{r1, r2} {
			if err := r.WaitFor(ctx, w.last); err != nil {
				t.Fatalf("WaitFor: %v", err)
			}
		}
		checkLedger(ctx, t, b.db, "ledger", w)
	})
}

// Rebuilding produces tables identical, row by row, to those built incrementally, both while the
// runner runs and events keep arriving, and offline.
func TestRebuildMatchesIncremental(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		rebuilt, reference := b.ledger(t, "rebuilt"), b.ledger(t, "reference")
		r := b.runner(t, &projections.Options{BatchSize: 64}, rebuilt, reference)
		stop := start(t, r)

		w := &workload{}
		appendMovements(ctx, t, b.store, w, 1500, 10, 4)
		if err := r.WaitFor(ctx, w.last); err != nil {
			t.Fatalf("WaitFor: %v", err)
		}
		compare := func(when string) {
			t.Helper()
			want, err := reference.Dump(ctx, b.db)
			if err != nil {
				t.Fatal(err)
			}
			got, err := rebuilt.Dump(ctx, b.db)
			if err != nil {
				t.Fatal(err)
			}
			if len(want["applied"]) != w.count {
				t.Fatalf("%s: reference has %d events, want %d", when, len(want["applied"]), w.count)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: rebuilt tables differ from the incremental ones (-incremental +rebuilt):\n%s", when, diff)
			}
		}
		compare("before any rebuild")

		// Online, with appends still arriving.
		more := make(chan struct{})
		go func() {
			defer close(more)
			appendMovements(ctx, t, b.store, w, 600, 3, 3)
		}()
		if err := r.Rebuild(ctx, "rebuilt"); err != nil {
			t.Fatalf("Rebuild while running: %v", err)
		}
		<-more
		if err := r.WaitFor(ctx, w.last); err != nil {
			t.Fatalf("WaitFor after rebuild: %v", err)
		}
		compare("after a rebuild while running")
		checkLedger(ctx, t, b.db, "rebuilt", w)

		// Offline, all projections, on a runner that is not running (as the CLI does).
		if err := stop(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		offline := b.runner(t, nil, rebuilt, reference)
		if err := offline.Rebuild(ctx, ""); err != nil {
			t.Fatalf("offline Rebuild: %v", err)
		}
		for _, st := range offline.Status() {
			if st.Position != w.last {
				t.Errorf("after offline rebuild %s is at %s, want %s", st.Name, st.Position, w.last)
			}
		}
		compare("after an offline rebuild of all")
		checkLedger(ctx, t, b.db, "reference", w)
	})
}

// A projection that cannot apply an event stops exactly there, says so, and never skips it; the other
// projection keeps going; once the fault is fixed it resumes from that event.
func TestFailingProjectionStopsAndResumes(t *testing.T) {
	cases := []struct {
		name    string
		poison  int  // index of the event the projection cannot apply
		restart bool // resume by restarting the runner instead of Resume
	}{
		{name: "first event of the log", poison: 0},
		{name: "middle of a batch", poison: 25},
		{name: "first of a batch", poison: 30},
		{name: "last of a batch", poison: 39, restart: true},
	}
	for _, be := range backends {
		for _, tc := range cases {
			t.Run(be.name+"/"+tc.name, func(t *testing.T) {
				b := be.open(t)
				ctx := testCtx(t)
				prefix := fmt.Sprintf("p%d", tc.poison)
				good, bad := b.ledger(t, prefix+"_good"), b.ledger(t, prefix+"_bad")
				r := b.runner(t, &projections.Options{BatchSize: 10}, good, bad)

				// One stream, one event per append, so positions follow append order.
				stream := "account-" + prefix
				appendOne := func(ev eventstore.EventData) eventstore.Position {
					pos, err := b.store.Append(ctx, stream, eventstore.Any, ev)
					if err != nil {
						t.Fatal(err)
					}
					return pos
				}
				var positions []eventstore.Position
				var poisonID string
				for i := range 60 {
					ev := projectiontest.Deposit("a", int64(i+1))
					if i == tc.poison {
						poisonID = ev.ID.String()
					}
					positions = append(positions, appendOne(ev))
				}
				fault := errors.New("disk on fire")
				bad.SetHook(func(ctx context.Context, env eventstore.Envelope) error {
					if env.ID.String() == poisonID {
						return fault
					}
					return nil
				})
				stop := start(t, r)

				last := positions[len(positions)-1]
				if err := r.WaitForProjection(ctx, good.Name(), last); err != nil {
					t.Fatalf("the healthy projection did not keep going: %v", err)
				}
				err := r.WaitFor(ctx, last)
				var failure *projections.Failure
				if !errors.As(err, &failure) || !errors.Is(err, fault) {
					t.Fatalf("WaitFor = %v, want a *Failure wrapping the fault", err)
				}
				if failure.Projection != bad.Name() || failure.Event.ID.String() != poisonID || failure.Event.Position != positions[tc.poison] {
					t.Errorf("failure names projection %q event %s at %s, want %q event %s at %s",
						failure.Projection, failure.Event.ID, failure.Event.Position, bad.Name(), poisonID, positions[tc.poison])
				}
				for _, want := range []string{bad.Name(), poisonID, projectiontest.Deposited, "disk on fire"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not mention %q", err, want)
					}
				}
				// It stopped right before the poison, with everything before it applied.
				var wantPos eventstore.Position
				if tc.poison > 0 {
					wantPos = positions[tc.poison-1]
				}
				st := statusOf(t, r, bad.Name())
				if st.Position != wantPos || st.Err == nil || st.CaughtUp {
					t.Errorf("status of the failed projection = %+v, want position %s, an error, not caught up", st, wantPos)
				}
				if err := r.Ready(ctx); err == nil || !strings.Contains(err.Error(), bad.Name()) {
					t.Errorf("Ready = %v, want an error naming %s", err, bad.Name())
				}
				var errText, errID, errType, errCommit string
				if err := b.db.QueryRowContext(ctx, `SELECT error, error_event_id, error_event_type, error_commit_pos FROM projection_checkpoints WHERE name = $1`, bad.Name()).
					Scan(&errText, &errID, &errType, &errCommit); err != nil {
					t.Fatalf("read checkpoint row: %v", err)
				}
				if !strings.Contains(errText, "disk on fire") || errID != poisonID || errType != projectiontest.Deposited || errCommit != fmt.Sprintf("%020d", positions[tc.poison].Commit) {
					t.Errorf("checkpoint row records error %q event %s %s at %s; want the fault and the poison event", errText, errID, errType, errCommit)
				}
				var applied int
				if err := b.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+bad.Name()+`_applied`).Scan(&applied); err != nil {
					t.Fatal(err)
				}
				if applied != tc.poison {
					t.Errorf("failed projection applied %d events, want the %d before the poison", applied, tc.poison)
				}

				// More events: the healthy one follows, the failed one stays put.
				last = appendOne(projectiontest.Deposit("a", 1000))
				if err := r.WaitForProjection(ctx, good.Name(), last); err != nil {
					t.Fatalf("healthy projection: %v", err)
				}
				if st := statusOf(t, r, bad.Name()); st.Position != wantPos {
					t.Errorf("failed projection moved to %s, want it to stay at %s", st.Position, wantPos)
				}

				// Fix the fault and resume.
				bad.SetHook(nil)
				if tc.restart {
					if err := stop(); err != nil {
						t.Fatalf("Run: %v", err)
					}
					start(t, r)
				} else if err := r.Resume(bad.Name()); err != nil {
					t.Fatalf("Resume: %v", err)
				}
				if err := r.WaitFor(ctx, last); err != nil {
					t.Fatalf("WaitFor after the fix: %v", err)
				}
				var cleared *string
				if err := b.db.QueryRowContext(ctx, `SELECT error FROM projection_checkpoints WHERE name = $1`, bad.Name()).Scan(&cleared); err != nil {
					t.Fatal(err)
				}
				if cleared != nil {
					t.Errorf("checkpoint still records error %q after recovery", *cleared)
				}
				wantRows, err := good.Dump(ctx, b.db)
				if err != nil {
					t.Fatal(err)
				}
				gotRows, err := bad.Dump(ctx, b.db)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(wantRows, gotRows); diff != "" {
					t.Errorf("recovered projection differs from the healthy one (-healthy +recovered):\n%s", diff)
				}
			})
		}
	}
}

func statusOf(t testing.TB, r *projections.Runner, name string) projections.Status {
	t.Helper()
	for _, st := range r.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no status for %s", name)
	return projections.Status{}
}

// A caller that waits for the position its append returned reads its own write.
func TestWaitForReadYourWrites(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		ledger := b.ledger(t, "ledger")
		r := b.runner(t, &projections.Options{PollInterval: time.Hour}, ledger) // only wake-ups, no polling
		start(t, r)
		var want int64
		for i := range 40 {
			want += int64(i + 1)
			pos, err := b.store.Append(ctx, "account-ryw", eventstore.Any, projectiontest.Deposit("ryw", int64(i+1)))
			if err != nil {
				t.Fatal(err)
			}
			if err := r.WaitFor(ctx, pos); err != nil {
				t.Fatalf("WaitFor(%s): %v", pos, err)
			}
			var got int64
			if err := b.db.QueryRowContext(ctx, `SELECT balance FROM ledger_accounts WHERE account = 'ryw'`).Scan(&got); err != nil {
				t.Fatalf("read after WaitFor(%s): %v", pos, err)
			}
			if got != want {
				t.Fatalf("after append %d, read balance %d, want %d", i, got, want)
			}
		}
		if err := r.Ready(ctx); err != nil {
			t.Errorf("Ready after catching up: %v", err)
		}

		// A position nobody has reached: WaitFor gives up with ctx, saying who is behind.
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		err := r.WaitFor(short, eventstore.Position{Commit: 1 << 62, Prepare: 1 << 62})
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "ledger") {
			t.Errorf("WaitFor beyond the log = %v, want a deadline error naming the projection", err)
		}
		if err := r.WaitForProjection(ctx, "nope", eventstore.Start); err == nil || !strings.Contains(err.Error(), "ledger") {
			t.Errorf("WaitForProjection of an unknown name = %v, want an error listing the known ones", err)
		}
	})
}

// The lag metrics show a projection falling behind and catching up.
func TestLagMetrics(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		ledger := b.ledger(t, "ledger")
		reg := prometheus.NewRegistry()
		r := b.runner(t, &projections.Options{Registerer: reg}, ledger)
		// Twenty events decided ten minutes ago, appended before the runner starts: on PostgreSQL a
		// projection transaction held open (as the gate below holds it) keeps readers from seeing
		// events committed after it began, since the store reads only below the oldest running
		// transaction.
		var last eventstore.Position
		for i := range 20 {
			ev := projectiontest.Deposit("lag", int64(i))
			ev.Metadata.Time = time.Now().Add(-10 * time.Minute)
			pos, err := b.store.Append(ctx, "account-lag", eventstore.Any, ev)
			if err != nil {
				t.Fatal(err)
			}
			last = pos
		}
		gate := make(chan struct{})
		ledger.SetHook(func(ctx context.Context, env eventstore.Envelope) error {
			select {
			case <-gate:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
		start(t, r)
		eventually(t, "lag_events to reach 20", func() bool {
			v, _ := metric(t, reg, "workbench_projection_lag_events", "ledger")
			return v == 20
		})
		if v, _ := metric(t, reg, "workbench_projection_lag_seconds", "ledger"); v < 600 {
			t.Errorf("lag_seconds while blocked = %v, want at least 600", v)
		}
		if v, ok := metric(t, reg, "workbench_projection_head_position", ""); !ok || v != float64(last.Commit) {
			t.Errorf("head_position = %v (present %v), want %d", v, ok, last.Commit)
		}
		if v, _ := metric(t, reg, "workbench_projection_position", "ledger"); v != 0 {
			t.Errorf("position while blocked = %v, want 0", v)
		}
		if v, _ := metric(t, reg, "workbench_projection_caught_up", "ledger"); v != 0 {
			t.Errorf("caught_up while blocked = %v, want 0", v)
		}
		if err := r.Ready(ctx); err == nil {
			t.Errorf("Ready while blocked = nil, want not ready")
		}

		close(gate)
		if err := r.WaitFor(ctx, last); err != nil {
			t.Fatal(err)
		}
		eventually(t, "caught_up", func() bool {
			v, _ := metric(t, reg, "workbench_projection_caught_up", "ledger")
			return v == 1
		})
		want := map[string]float64{
			"workbench_projection_lag_events":           0,
			"workbench_projection_lag_seconds":          0,
			"workbench_projection_position":             float64(last.Commit),
			"workbench_projection_events_applied_total": 20,
			"workbench_projection_failed":               0,
		}
		for name, v := range want {
			if got, ok := metric(t, reg, name, "ledger"); !ok || got != v {
				t.Errorf("%s = %v (present %v), want %v", name, got, ok, v)
			}
		}
		if err := r.Ready(ctx); err != nil {
			t.Errorf("Ready after catching up: %v", err)
		}
	})
}

func TestRunnerRefusesBadSetup(t *testing.T) {
	b := openSQLite(t)
	l1, l2 := b.ledger(t, "one"), b.ledger(t, "one")
	cases := []struct {
		name    string
		dialect string
		ps      []projections.Projection
		want    string
	}{
		{name: "two projections with one name", dialect: "sqlite", ps: []projections.Projection{l1, l2}, want: `two projections are named "one"`},
		{name: "unknown dialect", dialect: "oracle", ps: []projections.Projection{l1}, want: `unknown dialect "oracle"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := projections.NewRunner(b.store, b.db, migrationsDialect(tc.dialect), &projections.Options{Projections: tc.ps})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("NewRunner = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	r := b.runner(t, nil, l1)
	if err := r.Rebuild(testCtx(t), "two"); err == nil || !strings.Contains(err.Error(), `no projection named "two" (have: one)`) {
		t.Errorf("Rebuild of an unknown name = %v", err)
	}
	reg := prometheus.NewRegistry()
	b.runner(t, &projections.Options{Registerer: reg}, l1)
	if _, err := projections.NewRunner(b.store, b.db, b.dialect, &projections.Options{Registerer: reg, Projections: []projections.Projection{l1}}); err == nil {
		t.Errorf("a second runner registering on the same registry succeeded")
	}
}
