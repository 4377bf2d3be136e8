package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/eventstore"
)

// How long each figure is measured. The three figures of a case are taken in turns, rounds times, and
// each is the events of all its rounds over their time: on a shared, noisy machine a burst of load
// then falls on the store and on the baselines alike rather than on whichever ran at that moment.
// Four cases keep a full run near a minute.
const (
	rounds      = 3
	warmup      = 200 * time.Millisecond // before each measured period
	appendRun   = 3 * time.Second        // all rounds together
	rawRun      = 2 * time.Second        // each baseline, all rounds together
	rawBatchLen = 100
)

// rawWriter writes events straight into a table shaped like the store's, on the store's database with
// its durability settings, bypassing the store: the baseline the store is measured against.
type rawWriter interface {
	// insertOne writes one event in its own transaction (autocommit).
	insertOne(ctx context.Context, r rawRow) error
	// insertBatch writes the events in one transaction.
	insertBatch(ctx context.Context, rs []rawRow) error
}

// rawRow is one event in column form.
type rawRow struct {
	id       uuid.UUID
	stream   string
	version  int64
	typ      string
	schema   int
	data     []byte
	metadata []byte
}

// backend opens one benchmark case's store and raw writer on a fresh database.
type backend struct {
	name string
	open func(b *testing.B) opened
}

// opened is one case's store, its raw writer, and (when the backend can tell) a counter of the
// transactions the store has committed, to report how many events a group commit carried.
type opened struct {
	store   eventstore.Store
	raw     rawWriter
	batches *atomic.Int64
}

type figures struct {
	events, rawSingle, rawBatch float64
	perBatch                    float64 // events per committed transaction; 0 when unknown
}

// BenchmarkAppend measures the store's append rate with 1 and 64 concurrent appenders (each appends one
// event per call to its own stream) against two raw baselines on the same database, measured in the
// same case: one single-row INSERT per transaction, and 100 rows per transaction, each from one
// connection, with the store's payload, spread over as many streams as the case has appenders (see
// newRawStreams). It prints one line per case:
//
//	append backend=<b> appenders=<n> events_per_s=<x> raw_single_per_s=<y> raw_batch100_per_s=<z> vs_raw_single=<x/y> vs_raw_batch100=<x/z> events_per_commit=<c>
//
// The figures the store is held to are vs_raw_single at one appender (an append costs what a bare
// single-row insert costs) and vs_raw_batch100 at 64 (group commit comes close to hand-batched
// transactions). events_per_commit is 0 where the backend does not report its commits.
//
// Each figure is measured over a fixed time whatever b.N is, once per case, the three in turns (see
// rounds).
func BenchmarkAppend(b *testing.B) {
	for _, be := range []backend{sqliteBackend(), postgresBackend()} {
		for _, appenders := range []int{1, 64} {
			var got *figures
			b.Run(fmt.Sprintf("backend=%s/appenders=%d", be.name, appenders), func(b *testing.B) {
				if got == nil {
					f := measure(b, be, appenders)
					got = &f
					fmt.Printf("append backend=%s appenders=%d events_per_s=%.0f raw_single_per_s=%.0f raw_batch100_per_s=%.0f vs_raw_single=%.2f vs_raw_batch100=%.2f events_per_commit=%.1f\n",
						be.name, appenders, f.events, f.rawSingle, f.rawBatch, f.events/f.rawSingle, f.events/f.rawBatch, f.perBatch)
				}
				b.ReportMetric(got.events, "events/s")
				b.ReportMetric(got.rawSingle, "raw_single/s")
				b.ReportMetric(got.rawBatch, "raw_batch100/s")
				b.ReportMetric(1e9/got.events, "ns/op")
				if got.perBatch > 0 {
					b.ReportMetric(got.perBatch, "events/commit")
				}
			})
		}
	}
}

func measure(b *testing.B, be backend, appenders int) figures {
	o := be.open(b)
	ctx := context.Background()
	var single, batch, store, total tally
	for range rounds {
		n, d, err := rawSingle(ctx, o.raw, appenders)
		if err != nil {
			b.Fatalf("raw single-row inserts: %v", err)
		}
		single.add(n, d)
		if n, d, err = rawBatch(ctx, o.raw, appenders); err != nil {
			b.Fatalf("raw %d-row transactions: %v", rawBatchLen, err)
		}
		batch.add(n, d)
		n, d, all, err := appendFor(ctx, o.store, appenders)
		if err != nil {
			b.Fatalf("append: %v", err)
		}
		store.add(n, d)
		total.add(all, 0)
	}
	f := figures{events: store.rate(), rawSingle: single.rate(), rawBatch: batch.rate()}
	if o.batches != nil && o.batches.Load() > 0 {
		f.perBatch = float64(total.events) / float64(o.batches.Load())
	}
	return f
}

// tally adds up the events and the time of a figure's rounds.
type tally struct {
	events  int64
	elapsed time.Duration
}

func (t *tally) add(events int64, elapsed time.Duration) {
	t.events += events
	t.elapsed += elapsed
}

func (t *tally) rate() float64 { return float64(t.events) / t.elapsed.Seconds() }

// appendFor runs appenders goroutines for one round, each appending one event per call to its own
// stream with the exact expected version. It returns the events acknowledged after a warm-up and the
// time they took, and all the events appended.
func appendFor(ctx context.Context, store eventstore.Store, appenders int) (int64, time.Duration, int64, error) {
	var (
		counting atomic.Bool
		stop     atomic.Bool
		counted  atomic.Int64
		total    atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	run := uuid.NewString()[:8]
	for a := range appenders {
		wg.Go(func() {
			stream := fmt.Sprintf("bench-%s-%d", run, a)
			for v := int64(0); !stop.Load(); v++ {
				if _, err := store.Append(ctx, stream, eventstore.Exact(v), sampleEvent(a, v)); err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("appender %d: %w", a, err) })
					stop.Store(true)
					return
				}
				total.Add(1)
				if counting.Load() {
					counted.Add(1)
				}
			}
		})
	}
	time.Sleep(warmup)
	counting.Store(true)
	start := time.Now()
	time.Sleep(appendRun / rounds)
	n := counted.Load()
	elapsed := time.Since(start)
	stop.Store(true)
	wg.Wait()
	if firstErr != nil {
		return 0, 0, 0, firstErr
	}
	return n, elapsed, total.Load(), nil
}

// rawStreams hands out the streams of a baseline, round robin, and each stream's next version.
type rawStreams struct {
	names    []string
	versions []int64
	next     int
}

// newRawStreams returns n streams. A baseline writes its rows over as many streams as the case has
// appenders, as the store's group commits do: rows of one stream sit together in the events table's
// (stream, version) index, rows of many streams do not, and with 64 streams a commit writes about
// twice the index pages per event that it writes with one (measured with SQLite: 2.4 WAL pages per
// event against 1.3). A one-stream baseline would measure that difference rather than the store.
func newRawStreams(prefix string, n int) *rawStreams {
	run := uuid.NewString()[:8]
	rs := &rawStreams{names: make([]string, n), versions: make([]int64, n)}
	for i := range rs.names {
		rs.names[i] = fmt.Sprintf("%s-%s-%d", prefix, run, i)
	}
	return rs
}

// row returns the next event of the baseline, on the next stream.
func (rs *rawStreams) row() rawRow {
	i := rs.next
	rs.next = (rs.next + 1) % len(rs.names)
	rs.versions[i]++
	return toRaw(rs.names[i], rs.versions[i], sampleEvent(i, rs.versions[i]))
}

func rawSingle(ctx context.Context, raw rawWriter, streams int) (int64, time.Duration, error) {
	rs := newRawStreams("raw-single", streams)
	return timed(func() (int, error) {
		return 1, raw.insertOne(ctx, rs.row())
	})
}

func rawBatch(ctx context.Context, raw rawWriter, streams int) (int64, time.Duration, error) {
	rs := newRawStreams("raw-batch", streams)
	rows := make([]rawRow, rawBatchLen)
	return timed(func() (int, error) {
		for i := range rows {
			rows[i] = rs.row()
		}
		return len(rows), raw.insertBatch(ctx, rows)
	})
}

// timed calls step (which writes some events) for the warm-up and then for one round of rawRun, and
// returns the events written after the warm-up and the time they took.
func timed(step func() (int, error)) (int64, time.Duration, error) {
	for end := time.Now().Add(warmup); time.Now().Before(end); {
		if _, err := step(); err != nil {
			return 0, 0, err
		}
	}
	start := time.Now()
	var total int64
	for time.Since(start) < rawRun/rounds {
		n, err := step()
		if err != nil {
			return 0, 0, err
		}
		total += int64(n)
	}
	return total, time.Since(start), nil
}

// sampleEvent is a typical event: about 200 bytes of JSON data and full metadata.
func sampleEvent(appender int, v int64) eventstore.EventData {
	id := uuid.New()
	data := fmt.Sprintf(`{"connection_id":"%s","integration":"github","user_id":"user-%04d","scopes":["repo","read:org","workflow"],"expires_at":"2026-06-01T12:00:00Z","credential":"sealed:v1:%012d"}`,
		id, appender, v)
	return eventstore.EventData{
		ID:            id,
		Type:          "connection.connected",
		SchemaVersion: 1,
		Data:          json.RawMessage(data),
		Metadata: eventstore.Metadata{
			Actor:         fmt.Sprintf("user-%04d", appender),
			MCPClient:     "client-bench",
			CorrelationID: id.String(),
			CausationID:   "req-" + id.String()[:8],
			Time:          time.Now().UTC(),
		},
	}
}

func toRaw(stream string, v int64, ev eventstore.EventData) rawRow {
	md, err := json.Marshal(ev.Metadata)
	if err != nil {
		panic(err) // eventstore.Metadata with a current time always encodes
	}
	return rawRow{id: ev.ID, stream: stream, version: v, typ: ev.Type, schema: ev.SchemaVersion, data: ev.Data, metadata: md}
}
