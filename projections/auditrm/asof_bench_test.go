package auditrm_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// BenchmarkAsOf measures `audit asof` latency (ms per question) on a log of tool runs
// (WORKBENCH_BENCH_ASOF_EVENTS, default 100,000; the figure is 1,000,000) with 1,000
// connections started across it, on SQLite and, when WORKBENCH_TEST_POSTGRES_URL is set, PostgreSQL.
// The bare ReadAll scan of the same log is the baseline in the same run: AsOf reads the whole log (event
// times are not monotonic), so its latency is that scan plus the fold.
func BenchmarkAsOf(b *testing.B) {
	events := 100_000
	if s := os.Getenv("WORKBENCH_BENCH_ASOF_EVENTS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			b.Fatalf("WORKBENCH_BENCH_ASOF_EVENTS=%q", s)
		}
		events = n
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			store := be.open(b).store
			ctx := context.Background()
			conns := eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
				Initial: connection.Initial, Evolve: connection.Evolve, Decide: connection.Decide,
				Codec: eventstore.NewJSONCodec(connection.Events()...),
			}
			const connections = 1000
			chunk := events / connections
			for i := range connections {
				if err := audittest.AppendToolRuns(ctx, store, audittest.Ada, audittest.Day1.Add(time.Duration(i)*time.Hour), chunk, 16); err != nil {
					b.Fatal(err)
				}
				user := uuid.New()
				at := audittest.Day1.Add(time.Duration(i) * time.Hour)
				if _, err := eventstore.Execute(ctx, store, connection.StreamName(user, "github", ""), conns,
					connection.Command(connection.Start{AttemptID: uuid.New(), UserID: user, Integration: "github", AuthMode: connection.AuthOAuth2,
						At: at, ExpiresAt: at.Add(time.Hour)}), eventstore.Metadata{Actor: user.String(), Time: at}); err != nil {
					b.Fatal(err)
				}
			}
			total := connections * (chunk + 1)
			b.Run("baseline_readall", func(b *testing.B) {
				for b.Loop() {
					n, from := 0, eventstore.Start
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
					if n != total {
						b.Fatalf("read %d events, want %d", n, total)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/scan")
			})
			b.Run("asof", func(b *testing.B) {
				mid := audittest.Day1.Add(connections / 2 * time.Hour)
				for b.Loop() {
					res, err := auditrm.AsOf(ctx, store, auditrm.AsOfQuery{At: mid})
					if err != nil {
						b.Fatal(err)
					}
					if len(res.Holdings) != connections/2+1 || res.Scanned != int64(total) {
						b.Fatalf("%d holdings from %d events", len(res.Holdings), res.Scanned)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/asof")
				fmt.Fprintf(os.Stderr, "asof backend=%s events=%d ms/asof=%.0f\n", be.name, total, float64(b.Elapsed().Milliseconds())/float64(b.N))
			})
		})
	}
}
