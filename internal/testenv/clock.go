package testenv

import (
	"sync"
	"time"
)

// Clock is the one fake clock of the tests: pass Clock.Now wherever production code takes a
// func() time.Time. It is safe for concurrent use.
//
// A Clock either stands still or runs. NewClock returns one standing at a given instant, which moves
// only when the test moves it (Set, Advance). The zero Clock runs: it reads the wall clock plus an
// offset (zero at first) that Set and Advance change, for code that also waits on real timers. Freeze
// stops a running clock at its current reading, for a test that must not lose a second between two
// steps on a busy machine; Thaw lets it run again at the offset it had, plus whatever Advance added
// while it stood, so the time spent frozen is caught up at once.
type Clock struct {
	mu     sync.Mutex
	frozen bool
	at     time.Time     // the reading while frozen
	offset time.Duration // added to the wall clock's reading while running
}

// NewClock returns a clock standing at at.
func NewClock(at time.Time) *Clock {
	return &Clock{frozen: true, at: at}
}

// Now returns the clock's reading.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		return c.at
	}
	return time.Now().Add(c.offset)
}

// Set makes the clock read t: a standing clock stands at t, a running one runs on from t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.frozen {
		c.offset += t.Sub(c.at)
		c.at = t
		return
	}
	c.offset = time.Until(t)
}

// Advance moves the clock by d (back, when d is negative).
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	if c.frozen {
		c.at = c.at.Add(d)
	}
}

// Freeze stops a running clock at its current reading; a standing clock is left as it is.
func (c *Clock) Freeze() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen {
		c.at, c.frozen = time.Now().Add(c.offset), true
	}
}

// Thaw lets the clock run on the wall clock again, at its offset: every Set and Advance since it was
// created is kept, the time it stood still is not.
func (c *Clock) Thaw() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.frozen = false
}
