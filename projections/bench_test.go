package projections_test

import (
	"context"
	"testing"
)

// BenchmarkRebuild appends 200,000 events through the store's group commit (16 appenders, 100 events
// per append) and then measures Rebuild of one Ledger projection from position zero: reset, then read
// and apply every event in batches of 500, one transaction per batch. It reports rebuild_events/s.
// PostgreSQL runs when WORKBENCH_TEST_POSTGRES_URL is set.
func BenchmarkRebuild(b *testing.B) {
	const events = 200_000
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			bk := be.open(b)
			ctx := context.Background()
			ledger := bk.ledger(b, "bench")
			w := &workload{}
			appendMovements(ctx, b, bk.store, w, events, 100, 16)
			if w.count != events {
				b.Fatalf("appended %d events, want %d", w.count, events)
			}
			r := bk.runner(b, nil, ledger)
			rebuilds := 0
			for b.Loop() {
				if err := r.Rebuild(ctx, ledger.Name()); err != nil {
					b.Fatalf("Rebuild: %v", err)
				}
				rebuilds++
			}
			b.ReportMetric(float64(events*rebuilds)/b.Elapsed().Seconds(), "rebuild_events/s")
			var applied int
			if err := bk.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM bench_applied`).Scan(&applied); err != nil {
				b.Fatal(err)
			}
			if applied != events {
				b.Fatalf("rebuilt ledger holds %d events, want %d", applied, events)
			}
			if st := r.Status()[0]; st.Position != w.last {
				b.Fatalf("rebuilt to %s, want %s", st.Position, w.last)
			}
		})
	}
}
