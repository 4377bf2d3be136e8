package mcpsessions

import (
	"context"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/bus"
)

// Two replicas over one log and one bus: a session ended on A is refused on B, and a replica started
// later learns it from Preload.
func TestSessionEndReachesEveryReplica(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	log := memory.New(nil)
	defer log.Close()
	b, err := bus.Open(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	relay, err := bus.NewRelay(bus.RelayConfig{Store: log, Bus: b})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- relay.Run(rctx) }()
	defer func() { stop(); <-done }()

	a, replicaB := New(log, nil), New(log, nil)
	if _, err := b.Subscribe(ctx, bus.EventsTopic, replicaB.Observe); err != nil {
		t.Fatal(err)
	}
	expires := time.Now().Add(time.Hour)
	if err := a.End(ctx, "sess-1", expires); err != nil {
		t.Fatal(err)
	}
	if ended, _ := a.Ended(ctx, "sess-1"); !ended {
		t.Fatal("the replica that ended the session still honours it")
	}
	for {
		if ended, _ := replicaB.Ended(ctx, "sess-1"); ended {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the other replica never heard of the end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if ended, _ := replicaB.Ended(ctx, "sess-2"); ended {
		t.Fatal("an unrelated session is ended")
	}
	// A second DELETE of the same session is not an error and records nothing more.
	if err := a.End(ctx, "sess-1", expires); err != nil {
		t.Fatal(err)
	}
	envs, err := log.Load(ctx, mcpsession.StreamName("sess-1"), 1)
	if err != nil || len(envs) != 1 {
		t.Fatalf("%d events for one session end (%v)", len(envs), err)
	}
	late := New(log, nil)
	late.Preload(map[string]time.Time{"sess-1": expires, "old": time.Now().Add(-time.Minute)})
	if ended, _ := late.Ended(ctx, "sess-1"); !ended {
		t.Fatal("a replica started later honours an ended session")
	}
	if ended, _ := late.Ended(ctx, "old"); ended {
		t.Fatal("a lapsed session is remembered")
	}
}

func TestForgetsAtExpiry(t *testing.T) {
	now := time.Now()
	s := New(memory.New(nil), func() time.Time { return now })
	if err := s.End(context.Background(), "s", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if ended, _ := s.Ended(context.Background(), "s"); ended {
		t.Fatal("still remembered after its expiry")
	}
	if len(s.ended) != 0 {
		t.Fatal("memory not released")
	}
}
