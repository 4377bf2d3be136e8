package auditrm_test

import (
	"context"
	"testing"

	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// BenchmarkRebuild appends 20,000 tool runs of one user (16 appenders, group-committed) after the
// audittest log and measures Rebuild of the audit projection from position zero, in batches of the
// runner's default 500 events, one transaction each. It reports rebuild_events/s. PostgreSQL runs when
// WORKBENCH_TEST_POSTGRES_URL is set.
func BenchmarkRebuild(b *testing.B) {
	const runs = 20_000
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			bk := be.open(b)
			ctx := context.Background()
			log := audittest.Build(ctx, b, bk.store, bk.vault(b))
			if err := audittest.AppendToolRuns(ctx, bk.store, audittest.Bob, audittest.Day1.AddDate(0, 1, 0), runs, 16); err != nil {
				b.Fatal(err)
			}
			r, err := projections.NewRunner(bk.store, bk.db, bk.dialect, &projections.Options{Projections: []projections.Projection{auditrm.New()}})
			if err != nil {
				b.Fatal(err)
			}
			rebuilds := 0
			for b.Loop() {
				if err := r.Rebuild(ctx, auditrm.Name); err != nil {
					b.Fatalf("Rebuild: %v", err)
				}
				rebuilds++
			}
			events := log.Events + runs
			b.ReportMetric(float64(events*rebuilds)/b.Elapsed().Seconds(), "rebuild_events/s")
			var n int
			if err := bk.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_records`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			if n != 20+runs {
				b.Fatalf("rebuilt read model holds %d records, want %d", n, 20+runs)
			}
		})
	}
}
