package testenv

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Tests that take one lock never overlap, although they run in parallel.
func TestExclusiveSerializes(t *testing.T) {
	name := "selftest-" + uuid.NewString()[:8]
	var inside, overlaps atomic.Int32
	// The group returns when its parallel holders have ended.
	t.Run("group", func(t *testing.T) {
		for range 4 {
			t.Run("holder", func(t *testing.T) {
				t.Parallel()
				Exclusive(t, name)
				if inside.Add(1) > 1 {
					overlaps.Add(1)
				}
				// Hold it a while: without the lock, the other holders would be inside by now.
				time.Sleep(20 * time.Millisecond)
				if inside.Load() > 1 {
					overlaps.Add(1)
				}
				inside.Add(-1)
			})
		}
	})
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("%d overlaps among holders of one lock", n)
	}
}
