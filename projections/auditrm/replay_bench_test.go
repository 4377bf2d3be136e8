package auditrm_test

import (
	"context"
	"io"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// BenchmarkReplay measures replay throughput over a SQLite log of 100,000 tool runs (appended through
// the store's group commit from 16 goroutines), in events scanned per second: the bare ReadAll loop
// over the same log as the baseline, then Replay writing JSON Lines and CSV to io.Discard.
func BenchmarkReplay(b *testing.B) {
	const events = 100_000
	store := openSQLite(b).store
	ctx := context.Background()
	if err := audittest.AppendToolRuns(ctx, store, audittest.Ada, audittest.Day1, events, 16); err != nil {
		b.Fatal(err)
	}
	b.Run("baseline_readall", func(b *testing.B) {
		n := 0
		for b.Loop() {
			from := eventstore.Start
			for {
				envs, err := store.ReadAll(ctx, from, 1000)
				if err != nil {
					b.Fatal(err)
				}
				if len(envs) == 0 {
					break
				}
				n += len(envs)
				from = envs[len(envs)-1].Position
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "events/s")
	})
	for _, format := range []string{auditrm.FormatJSONL, auditrm.FormatCSV} {
		b.Run("replay_"+format, func(b *testing.B) {
			var scanned int64
			for b.Loop() {
				w, err := auditrm.NewWriter(format, io.Discard)
				if err != nil {
					b.Fatal(err)
				}
				var last auditrm.Progress
				if err := auditrm.Replay(ctx, store, auditrm.Filter{}, w.Write, func(p auditrm.Progress) { last = p }); err != nil {
					b.Fatal(err)
				}
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
				if last.Emitted != events {
					b.Fatalf("emitted %d records, want %d", last.Emitted, events)
				}
				scanned += last.Scanned
			}
			b.ReportMetric(float64(scanned)/b.Elapsed().Seconds(), "events/s")
		})
	}
}
