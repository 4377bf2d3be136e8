package projections

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/workbench/workbench/eventstore"
)

// watch follows the log with Subscribe from the slowest checkpoint: it records each event in the
// window and wakes the projection loops. It applies nothing and writes nothing.
func (r *Runner) watch(ctx context.Context, from eventstore.Position) error {
	var delay time.Duration
	for {
		err := r.store.Subscribe(ctx, from, func(env eventstore.Envelope) error {
			r.observe(env)
			from = env.Position
			delay = 0
			return nil
		})
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, eventstore.ErrClosed) {
			return fmt.Errorf("projections: follow the log: %w", err)
		}
		delay = nextDelay(delay, r.maxRetry)
		r.log.Warn("projections: subscription to the log failed; resubscribing", "err", err, "from", from.String(), "retry_in", delay)
		if !sleep(ctx, delay) {
			return nil
		}
	}
}

// observe records env as seen and wakes every projection loop.
func (r *Runner) observe(env eventstore.Envelope) {
	at := env.Metadata.Time
	if at.IsZero() {
		at = time.Now()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.window.add(env.Position, at.UnixNano())
	if r.window.added%256 == 0 {
		// Forget what every healthy projection has applied. A stopped projection does not hold the
		// window back; its lag becomes a lower bound.
		var floor eventstore.Position
		found := false
		for _, pr := range r.procs {
			if pr.failure == nil && (!found || pr.pos.Less(floor)) {
				floor, found = pr.pos, true
			}
		}
		if found {
			r.window.dropThrough(floor)
		}
	}
	for _, pr := range r.procs {
		select {
		case pr.wake <- struct{}{}:
		default:
		}
	}
}

// maxWindow caps the events the window remembers (24 bytes each).
const maxWindow = 1 << 20

// window remembers, in log order, the events the subscription has seen that some projection may not
// have applied yet, with the time of each (its metadata time, or when it was seen). It answers "how
// many events after this position, and how old is the oldest of them" with a binary search.
type window struct {
	entries []seenEvent // entries[start:] are live, ordered by position
	start   int
	added   uint64
	last    eventstore.Position // the newest event seen
}

type seenEvent struct {
	pos eventstore.Position
	at  int64 // unix nanoseconds
}

func (w *window) live() []seenEvent { return w.entries[w.start:] }

func (w *window) add(pos eventstore.Position, at int64) {
	w.entries = append(w.entries, seenEvent{pos: pos, at: at})
	w.added++
	w.last = pos
	if n := len(w.entries) - w.start; n > maxWindow {
		w.start += n - maxWindow
	}
	w.compact()
}

// dropThrough forgets the events at or before pos.
func (w *window) dropThrough(pos eventstore.Position) {
	live := w.live()
	w.start += sort.Search(len(live), func(i int) bool { return pos.Less(live[i].pos) })
	w.compact()
}

// compact moves the live entries to the front once the dead ones are the larger part.
func (w *window) compact() {
	if w.start >= 4096 && w.start > len(w.entries)/2 {
		n := copy(w.entries, w.entries[w.start:])
		clear(w.entries[n:])
		w.entries, w.start = w.entries[:n], 0
	}
}

// behind returns how many remembered events come after pos and the time of the first of them.
func (w *window) behind(pos eventstore.Position) (n int, oldest int64) {
	live := w.live()
	i := sort.Search(len(live), func(i int) bool { return pos.Less(live[i].pos) })
	if i == len(live) {
		return 0, 0
	}
	return len(live) - i, live[i].at
}

// head returns the newest event seen, if any.
func (w *window) head() (eventstore.Position, bool) {
	return w.last, w.added > 0
}

// collector exports the runner's state as Prometheus metrics, computed at scrape time.
type collector struct {
	r                                                              *Runner
	position, head, lagEvents, lagSeconds, applied, failed, caught *prometheus.Desc
}

func newCollector(r *Runner) *collector {
	label := []string{"projection"}
	return &collector{
		r:          r,
		position:   prometheus.NewDesc("workbench_projection_position", "Commit part of the log position of the last event the projection applied.", label, nil),
		head:       prometheus.NewDesc("workbench_projection_head_position", "Commit part of the log position of the newest event the projection runner has seen.", nil, nil),
		lagEvents:  prometheus.NewDesc("workbench_projection_lag_events", "Events in the log after the projection's position (a lower bound when it is far behind or stopped).", label, nil),
		lagSeconds: prometheus.NewDesc("workbench_projection_lag_seconds", "Age of the oldest event the projection has not applied yet; 0 when caught up.", label, nil),
		applied:    prometheus.NewDesc("workbench_projection_events_applied_total", "Events the projection applied and committed since the process started.", label, nil),
		failed:     prometheus.NewDesc("workbench_projection_failed", "1 while the projection is stopped on an event it cannot apply.", label, nil),
		caught:     prometheus.NewDesc("workbench_projection_caught_up", "1 once the projection has read to the end of the log and has no lag.", label, nil),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.position, c.head, c.lagEvents, c.lagSeconds, c.applied, c.failed, c.caught} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	b := func(v bool) float64 {
		if v {
			return 1
		}
		return 0
	}
	for _, st := range c.r.Status() {
		ch <- prometheus.MustNewConstMetric(c.position, prometheus.GaugeValue, float64(st.Position.Commit), st.Name)
		ch <- prometheus.MustNewConstMetric(c.lagEvents, prometheus.GaugeValue, float64(st.LagEvents), st.Name)
		ch <- prometheus.MustNewConstMetric(c.lagSeconds, prometheus.GaugeValue, st.Lag.Seconds(), st.Name)
		ch <- prometheus.MustNewConstMetric(c.applied, prometheus.CounterValue, float64(st.Applied), st.Name)
		ch <- prometheus.MustNewConstMetric(c.failed, prometheus.GaugeValue, b(st.Err != nil), st.Name)
		ch <- prometheus.MustNewConstMetric(c.caught, prometheus.GaugeValue, b(st.CaughtUp), st.Name)
	}
	c.r.mu.Lock()
	head, ok := c.r.window.head()
	c.r.mu.Unlock()
	if ok {
		ch <- prometheus.MustNewConstMetric(c.head, prometheus.GaugeValue, float64(head.Commit))
	}
}
