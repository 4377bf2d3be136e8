package testenv

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Tests that take one lock never overlap, although they run in parallel.
func TestExclusiveSerializes(t *testing.T) {
	name := "selftest-" + uuid.NewString()[:8]
	var inside, overlaps atomic.Int32
	var wg sync.WaitGroup
	t.Run("group", func(t *testing.T) {
		for range 4 {
			wg.Add(1)
			t.Run("holder", func(t *testing.T) {
				t.Parallel()
				defer wg.Done()
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
	wg.Wait()
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("%d overlaps among holders of one lock", n)
	}
}
