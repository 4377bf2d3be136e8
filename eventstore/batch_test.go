package eventstore

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// stepCommit is a CommitFunc the test drives: each call reports its batch on calls and waits for a
// value on release before it succeeds.
type stepCommit struct {
	calls   chan []AppendRequest
	release chan struct{}
}

func newStepCommit() *stepCommit {
	return &stepCommit{calls: make(chan []AppendRequest), release: make(chan struct{})}
}

func (c *stepCommit) commit(_ context.Context, batch []AppendRequest) ([]AppendOutcome, error) {
	c.calls <- batch
	<-c.release
	out := make([]AppendOutcome, len(batch))
	for i := range out {
		out[i].Position = Position{Commit: uint64(i + 1), Prepare: uint64(i + 1)}
	}
	return out, nil
}

// next returns the next batch handed to commit (failing the test if none comes).
func (c *stepCommit) next(t *testing.T) []AppendRequest {
	t.Helper()
	select {
	case b := <-c.calls:
		return b
	case <-time.After(time.Minute): // a guard against a hang, not a timing assertion
		t.Fatal("no batch was committed")
		return nil
	}
}

func testRequest(stream string) AppendRequest {
	return AppendRequest{Stream: stream, Expected: Any, Events: []EventData{{ID: uuid.New(), Type: "t", Data: []byte(`{}`)}}}
}

// appendAsync runs b.Append in a goroutine and returns where its error arrives.
func appendAsync(b *Batcher, stream string) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := b.Append(context.Background(), testRequest(stream))
		done <- err
	}()
	return done
}

// waitQueued waits until n requests sit in the batcher's queue.
func waitQueued(b *Batcher, n int) {
	for len(b.queue) < n {
		runtime.Gosched()
	}
}

// startTwoBatches commits a batch of one request and then a batch of two (so the next batch may
// linger), and returns with the second batch's commit in progress, to be released by the caller.
func startTwoBatches(t *testing.T, b *Batcher, c *stepCommit) (waits []<-chan error) {
	t.Helper()
	waits = append(waits, appendAsync(b, "a"))
	if got := c.next(t); len(got) != 1 {
		t.Fatalf("first batch has %d requests, want 1", len(got))
	}
	waits = append(waits, appendAsync(b, "b"), appendAsync(b, "c"))
	waitQueued(b, 2)
	c.release <- struct{}{}
	if got := c.next(t); len(got) != 2 {
		t.Fatalf("second batch has %d requests, want 2", len(got))
	}
	return waits
}

// TestBatcherLingerSkipsAnsweredCallers pins that a batch stops lingering once the callers the previous
// batch answered have returned from Append without appending again (with a linger of an hour, the test
// would hang otherwise).
func TestBatcherLingerSkipsAnsweredCallers(t *testing.T) {
	c := newStepCommit()
	b := newBatcher(c.commit, &BatcherOptions{Linger: time.Hour}, false)
	defer b.Close()
	waits := startTwoBatches(t, b, c)
	waits = append(waits, appendAsync(b, "d"))
	waitQueued(b, 1)
	c.release <- struct{}{} // answers b and c, who return; d is next, with nobody else to wait for
	if got := c.next(t); len(got) != 1 || got[0].Stream != "d" {
		t.Fatalf("third batch = %v, want d alone", got)
	}
	c.release <- struct{}{}
	for _, w := range waits {
		if err := <-w; err != nil {
			t.Fatal(err)
		}
	}
	if n := b.inflight.Load(); n != 0 {
		t.Fatalf("inflight = %d after every append returned, want 0", n)
	}
}

// TestBatcherLingerGathersArrivingCaller pins that a batch does wait for a caller still inside Append
// that has not queued its request yet, and takes it in.
func TestBatcherLingerGathersArrivingCaller(t *testing.T) {
	c := newStepCommit()
	b := newBatcher(c.commit, &BatcherOptions{Linger: time.Hour}, false)
	defer b.Close()
	waits := startTwoBatches(t, b, c)
	waits = append(waits, appendAsync(b, "d"))
	waitQueued(b, 1)
	// A caller between entering Append and queueing its request, held there by the test.
	b.inflight.Add(1)
	defer b.inflight.Add(-1)
	c.release <- struct{}{}
	e := &pending{ctx: context.Background(), req: testRequest("e"), reply: make(chan AppendOutcome, 1)}
	b.queue <- e
	got := c.next(t)
	if len(got) != 2 || got[0].Stream != "d" || got[1].Stream != "e" {
		t.Fatalf("third batch = %v, want d and e together", got)
	}
	if st := b.Stats(); st.Lingering <= 0 {
		t.Fatalf("stats = %+v, want the linger counted", st)
	}
	c.release <- struct{}{}
	if out := <-e.reply; out.Err != nil {
		t.Fatal(out.Err)
	}
	for _, w := range waits {
		if err := <-w; err != nil {
			t.Fatal(err)
		}
	}
}

// TestBatcherInflightCountsGiveUps pins that callers that give up (a cancelled context, a closed
// batcher) are no longer counted as inside Append.
func TestBatcherInflightCountsGiveUps(t *testing.T) {
	c := newStepCommit()
	b := newBatcher(c.commit, nil, false)
	first := appendAsync(b, "a")
	c.next(t) // the loop is now busy committing a's batch
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// With the queue full, the send cannot win over the cancelled context.
	for range cap(b.queue) {
		b.queue <- &pending{ctx: ctx, req: testRequest("x"), reply: make(chan AppendOutcome, 1)}
	}
	if _, err := b.Append(ctx, testRequest("y")); err != context.Canceled {
		t.Fatalf("Append with a cancelled context = %v, want context.Canceled", err)
	}
	if got := b.inflight.Load(); got != 1 {
		t.Fatalf("inflight = %d after a cancelled append, want 1 (a's)", got)
	}
	c.release <- struct{}{}
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	b.Close() // the cancelled requests are dropped without a commit
	if _, err := b.Append(context.Background(), testRequest("z")); err != ErrClosed {
		t.Fatalf("Append after Close = %v, want ErrClosed", err)
	}
	if got := b.inflight.Load(); got != 0 {
		t.Fatalf("inflight = %d after Close, want 0", got)
	}
}

// TestBatcherDirectCommit pins the lone caller's path: with nothing queued or committing, Append
// commits its request on its own goroutine; appends arriving meanwhile queue and are committed by the
// loop after it, never while it commits; and the stats count both.
func TestBatcherDirectCommit(t *testing.T) {
	c := newStepCommit()
	var active, overlapped atomic.Int32
	commit := func(ctx context.Context, batch []AppendRequest) ([]AppendOutcome, error) {
		if active.Add(1) > 1 {
			overlapped.Store(1)
		}
		defer active.Add(-1)
		return c.commit(ctx, batch)
	}
	b := NewBatcher(commit, nil)
	defer b.Close()
	waits := []<-chan error{appendAsync(b, "a")}
	if got := c.next(t); len(got) != 1 || got[0].Stream != "a" {
		t.Fatalf("first commit = %v, want a alone", got)
	}
	// a's commit is in progress, held by the test: these queue behind it.
	waits = append(waits, appendAsync(b, "b"), appendAsync(b, "c"))
	for b.inflight.Load() < 3 {
		runtime.Gosched()
	}
	c.release <- struct{}{}
	seen := map[string]bool{}
	for len(seen) < 2 {
		for _, r := range c.next(t) {
			seen[r.Stream] = true
		}
		c.release <- struct{}{}
	}
	if !seen["b"] || !seen["c"] {
		t.Fatalf("the loop committed %v, want b and c", seen)
	}
	for _, w := range waits {
		if err := <-w; err != nil {
			t.Fatal(err)
		}
	}
	if overlapped.Load() != 0 {
		t.Fatal("two commits ran at once")
	}
	if st := b.Stats(); st.Events != 3 || st.Commits < 2 || st.Commits > 3 || st.Direct != 1 {
		t.Fatalf("stats = %+v, want 3 events in 2 or 3 commits, one of them direct", st)
	}
	// The loop is idle again and nothing is queued: the next lone append is direct too.
	w := appendAsync(b, "d")
	if got := c.next(t); len(got) != 1 || got[0].Stream != "d" {
		t.Fatalf("commit = %v, want d alone", got)
	}
	c.release <- struct{}{}
	if err := <-w; err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st.Direct != 2 || st.Committing <= 0 {
		t.Fatalf("stats = %+v, want the second lone append direct and the time spent committing counted", st)
	}
}
