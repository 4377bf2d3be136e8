package bus_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/testenv"
)

// savesCounted is a MemoryCheckpoint that records every Save.
type savesCounted struct {
	*bus.MemoryCheckpoint
	mu    sync.Mutex
	saves []eventstore.Position
}

func (c *savesCounted) Save(ctx context.Context, p eventstore.Position) error {
	c.mu.Lock()
	c.saves = append(c.saves, p)
	c.mu.Unlock()
	return c.MemoryCheckpoint.Save(ctx, p)
}

func (c *savesCounted) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.saves)
}

// The relay writes its checkpoint at most once per SaveInterval however many batches it publishes,
// saves what it published once the interval has passed, and saves the last position when it stops.
func TestRelaySaveInterval(t *testing.T) {
	cases := []struct {
		name     string
		interval time.Duration
		// check runs after 40 events were published one append at a time, then the relay stopped.
		check func(t *testing.T, whileRunning, afterStop int)
	}{
		{"every batch when negative", -1, func(t *testing.T, whileRunning, afterStop int) {
			if whileRunning < 2 {
				t.Errorf("%d saves for many batches, want one per batch", whileRunning)
			}
		}},
		{"at most once per interval, and once more on stop", time.Hour, func(t *testing.T, whileRunning, afterStop int) {
			if whileRunning != 1 {
				t.Errorf("%d saves within the first interval, want 1 (the first batch)", whileRunning)
			}
			if afterStop != whileRunning+1 {
				t.Errorf("%d saves after stopping, want %d (the last position saved on the way out)", afterStop, whileRunning+1)
			}
		}},
		{"pending position saved once the interval passes", 30 * time.Millisecond, func(t *testing.T, whileRunning, afterStop int) {
			if whileRunning < 2 {
				t.Errorf("%d saves, want the first batch's and the later ones' once the interval passed", whileRunning)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			noLeaks(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			store := memory.New(nil)
			t.Cleanup(func() { store.Close() })
			b := open(t, ctx, "", nil)
			col := newCollector()
			if _, err := b.Subscribe(ctx, bus.EventsTopic, col.handle); err != nil {
				t.Fatal(err)
			}
			cp := &savesCounted{MemoryCheckpoint: bus.NewMemoryCheckpoint(eventstore.Start)}
			r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: b, Checkpoint: cp, SaveInterval: c.interval})
			if err != nil {
				t.Fatal(err)
			}
			stop := runRelay(t, ctx, r)
			for i := range 40 {
				appendEvents(t, ctx, store, 1, 1, i)
				time.Sleep(time.Millisecond) // separate batches
			}
			got := col.wait(t, 40)
			last := got[len(got)-1].Position
			if c.interval > 0 && c.interval < time.Second {
				deadline := time.Now().Add(10 * time.Second)
				for r.Position() != last && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
			}
			whileRunning := cp.count()
			stop()
			afterStop := cp.count()
			if p, _ := cp.Load(ctx); p != last {
				t.Errorf("checkpoint after stop at %s, want the last published %s", p, last)
			}
			c.check(t, whileRunning, afterStop)
		})
	}
}

// SQLCheckpoint.Save holds the write gate it was given: while someone else holds it, Save waits.
func TestSQLCheckpointWaitsForTheWriteGate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := testenv.MigratedSQLite(t)
	gate := sqlite.NewWriteGate()
	cp := bus.NewSQLCheckpoint(db, "gated").WithWriteGate(gate)
	if err := gate.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	want := eventstore.Position{Commit: 9, Prepare: 9}
	done := make(chan error, 1)
	go func() { done <- cp.Save(ctx, want) }()
	select {
	case err := <-done:
		t.Fatalf("Save returned (%v) while the gate was held", err)
	case <-time.After(100 * time.Millisecond):
	}
	gate.Unlock()
	if err := <-done; err != nil {
		t.Fatalf("Save after the gate opened: %v", err)
	}
	if got, err := cp.Load(ctx); err != nil || got != want {
		t.Errorf("Load = %s, %v; want %s", got, err, want)
	}
}

// A relay stopped while a batch is on its way lets that batch finish and saves its position, instead
// of abandoning a batch the bus has already delivered (it would be published again at the next start).
func TestRelayStopFinishesTheBatchOnItsWay(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	b := open(t, ctx, "", nil)
	got, release := make(chan eventstore.Envelope, 1), make(chan struct{})
	if _, err := b.Subscribe(ctx, bus.EventsTopic, func(ctx context.Context, env eventstore.Envelope) error {
		select {
		case got <- env:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	cp := bus.NewMemoryCheckpoint(eventstore.Start)
	r, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: b, Checkpoint: cp, SaveInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	appendEvents(t, ctx, store, 1, 1, 0)
	env := <-got // the batch is on its way: the subscriber holds it
	stop()
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if p, _ := cp.Load(ctx); p != env.Position {
		t.Fatalf("checkpoint after stop at %s, want the batch on its way at stop, %s", p, env.Position)
	}
}
