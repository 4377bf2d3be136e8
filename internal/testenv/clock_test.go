package testenv

import (
	"sync"
	"testing"
	"time"
)

func TestClockStandsUntilMoved(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	time.Sleep(5 * time.Millisecond)
	if got := c.Now(); !got.Equal(t0) {
		t.Fatalf("a standing clock moved on its own: %v, want %v", got, t0)
	}
	c.Advance(90 * time.Second)
	if got, want := c.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance: %v, want %v", got, want)
	}
	t1 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	c.Set(t1)
	if got := c.Now(); !got.Equal(t1) {
		t.Fatalf("after Set: %v, want %v", got, t1)
	}
	c.Advance(-time.Hour)
	if got, want := c.Now(), t1.Add(-time.Hour); !got.Equal(want) {
		t.Fatalf("after a negative Advance: %v, want %v", got, want)
	}
}

// within fails the test unless got lies in [lo, hi].
func within(t *testing.T, what string, got, lo, hi time.Time) {
	t.Helper()
	if got.Before(lo) || got.After(hi) {
		t.Fatalf("%s: %v, want between %v and %v", what, got, lo, hi)
	}
}

func TestRunningClockFollowsTheWallClock(t *testing.T) {
	var c Clock
	lo := time.Now()
	got := c.Now()
	within(t, "zero clock", got, lo, time.Now())

	c.Advance(time.Hour)
	lo = time.Now()
	got = c.Now()
	within(t, "running clock an hour ahead", got, lo.Add(time.Hour), time.Now().Add(time.Hour))

	target := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	c.Set(target)
	time.Sleep(20 * time.Millisecond)
	if got := c.Now(); !got.After(target) || got.Sub(target) > time.Minute {
		t.Fatalf("a running clock set to %v reads %v 20ms later; want it a little later", target, got)
	}
}

func TestFreezeAndThaw(t *testing.T) {
	var c Clock
	c.Advance(time.Hour)
	c.Freeze()
	frozen := c.Now()
	time.Sleep(20 * time.Millisecond)
	if got := c.Now(); !got.Equal(frozen) {
		t.Fatalf("a frozen clock moved from %v to %v", frozen, got)
	}
	c.Advance(time.Minute)
	if got, want := c.Now(), frozen.Add(time.Minute); !got.Equal(want) {
		t.Fatalf("Advance while frozen: %v, want %v", got, want)
	}
	c.Freeze() // already standing: no change
	if got, want := c.Now(), frozen.Add(time.Minute); !got.Equal(want) {
		t.Fatalf("a second Freeze moved the clock: %v, want %v", got, want)
	}
	c.Thaw()
	lo := time.Now()
	got := c.Now()
	// Thawed, it reads the wall clock plus every move: the hour and the minute.
	within(t, "thawed clock", got, lo.Add(time.Hour+time.Minute), time.Now().Add(time.Hour+time.Minute))
}

// Readers and writers on many goroutines; under -race this proves the clock is safe for concurrent use,
// and without it the final reading checks that no Advance was lost.
func TestClockConcurrentUse(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewClock(t0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 100 {
				c.Advance(time.Second)
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				if c.Now().Before(t0) {
					t.Error("the clock went back")
					return
				}
			}
		}()
	}
	wg.Wait()
	if got, want := c.Now(), t0.Add(800*time.Second); !got.Equal(want) {
		t.Fatalf("after 800 concurrent one-second advances: %v, want %v", got, want)
	}
}
