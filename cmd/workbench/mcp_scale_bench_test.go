package main

// BenchmarkMCPScaling is the scaling table of the end-to-end MCP benchmark: the same audited
// execute_tools call (see BenchmarkMCPEndToEnd) at 1, 8, 32 and 128 concurrent clients, on logs that
// already hold 1k, 100k and 1M events, on SQLite and (when WORKBENCH_TEST_POSTGRES_URL is set)
// PostgreSQL. The events are bulk-inserted by one SQL statement before the servers start, and every
// projection, the bus relay and the vault's shred sweep are checkpointed at the end of them, as on a
// server that has run for a while; each server then waits until its audit chain has caught up. What
// is measured is a call's cost with that much log behind it, not a catch-up.
//
// All of a backend's log sizes are served at once, and each cell is measured in scaleRounds rounds that
// take the sizes in turn (each round starting at the next size), so that the sizes are compared over
// the same minutes: on a shared machine the throughput drifts by more than a log's size moves it. It
// prints one line per cell:
//
//	mcp_scale backend=<b> events=<n> clients=<c> calls_per_s=… p50_ms=… p99_ms=… cpu_us_per_call=… events_per_commit=… vs_1k=…
//
// where calls_per_s and cpu_us_per_call cover all rounds, p50_ms and p99_ms are the medians of the
// rounds' percentiles, and vs_1k is the median over the rounds of the calls/s against the 1k log's in
// the same round: the cost of a call must not grow with the log. Each cell takes
// WORKBENCH_BENCH_SCALE_SECONDS per size (default 2), after a short warm-up; WORKBENCH_BENCH_SCALE_EVENTS
// (comma-separated, default 1000,100000,1000000; the first is the baseline) picks the log sizes. With
// WORKBENCH_BENCH_PROFILE_DIR set, each size's first 32-client round writes its CPU, block and mutex
// profiles there (scale_<backend>_<events>_cpu.pprof, …).

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/connectionsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/jotsrm"
	"github.com/workbench/workbench/projections/mcpsessionsrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/portalsessionsrm"
)

var scaleClients = []int{1, 8, 32, 128}

func scaleSizes(tb testing.TB) []int {
	v := os.Getenv("WORKBENCH_BENCH_SCALE_EVENTS")
	if v == "" {
		return []int{1000, 100_000, 1_000_000}
	}
	var out []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("WORKBENCH_BENCH_SCALE_EVENTS=%q: want comma-separated positive counts", v)
		}
		out = append(out, n)
	}
	return out
}

func scaleDuration(tb testing.TB) time.Duration {
	v := os.Getenv("WORKBENCH_BENCH_SCALE_SECONDS")
	if v == "" {
		return 2 * time.Second
	}
	n, err := strconv.ParseFloat(v, 64)
	if err != nil || n <= 0 {
		tb.Fatalf("WORKBENCH_BENCH_SCALE_SECONDS=%q: want a positive number of seconds", v)
	}
	return time.Duration(n * float64(time.Second))
}

// preloadLog migrates the database at target (a SQLite path or a PostgreSQL URL) and fills its log
// with n filler events (100 per stream, of a type no projection handles) in one statement, then
// checkpoints every projection, the relay and the shred sweep at the last of them.
func preloadLog(tb testing.TB, backend, target string, n int) time.Duration {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	var (
		db      *sql.DB
		err     error
		dialect migrations.Dialect
	)
	if backend == "sqlite" {
		db, err = sqlite.OpenDB(ctx, target)
		dialect = migrations.SQLite
	} else {
		db, err = sql.Open("pgx", target)
		dialect = migrations.Postgres
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
		tb.Fatal(err)
	}
	const md = `{"actor":"bench","time":"2026-01-01T00:00:00Z"}`
	var commit, prepare uint64
	if backend == "sqlite" {
		_, err = db.ExecContext(ctx, `WITH RECURSIVE g(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM g WHERE n + 1 < $1)
			INSERT INTO events (position, id, stream, version, type, schema_version, data, metadata)
			SELECT n + 1, printf('%08x-0000-4000-8000-%012x', n, n), 'filler-' || (n / 100), (n % 100) + 1, 'bench.filler', 1, '{"n":1}', '`+md+`' FROM g`, n)
		if err == nil {
			err = db.QueryRowContext(ctx, `SELECT MAX(position) FROM events`).Scan(&commit)
			prepare = commit
		}
	} else {
		_, err = db.ExecContext(ctx, `INSERT INTO events (id, stream, version, type, schema_version, data, metadata)
			SELECT md5(g::text)::uuid, 'filler-' || (g / 100), (g % 100) + 1, 'bench.filler', 1, convert_to('{"n":1}', 'UTF8'), '`+md+`'::jsonb
			FROM generate_series(0, $1 - 1) AS g ORDER BY g`, n)
		if err == nil {
			var xid string
			err = db.QueryRowContext(ctx, `SELECT xid::text, position FROM events ORDER BY xid DESC, position DESC LIMIT 1`).Scan(&xid, &prepare)
			if err == nil {
				commit, err = strconv.ParseUint(xid, 10, 64)
			}
		}
	}
	if err == nil && backend != "sqlite" {
		// A server that has run for a while has had its log vacuumed and analysed; without this the
		// autovacuum of the bulk load runs beside the first cells.
		_, err = db.ExecContext(ctx, `VACUUM (ANALYZE) events`)
	}
	if err != nil {
		tb.Fatalf("preload %d events on %s: %v", n, backend, err)
	}
	now := `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`
	if backend != "sqlite" {
		now = `now()`
	}
	pad := func(v uint64) string { return fmt.Sprintf("%020d", v) }
	for _, name := range []string{identityrm.Name, connectionsrm.Name, auditrm.Name, jotsrm.Name, oauthrm.Name, mcpsessionsrm.Name, portalsessionsrm.Name} {
		if _, err := db.ExecContext(ctx, `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES ($1, $2, $3, `+now+`)`,
			name, pad(commit), pad(prepare)); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO bus_relay_checkpoints (name, commit_position, prepare_position, updated_at) VALUES ('events', $1, $2, '2026-01-01T00:00:00Z')`,
		int64(commit), int64(prepare)); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO vault_shred_checkpoint (id, commit_pos, prepare_pos) VALUES (1, $1, $2)`, int64(commit), int64(prepare)); err != nil {
		tb.Fatal(err)
	}
	return time.Since(start)
}

// scaleRounds is how many turns each cell of the scaling table takes through the log sizes.
const scaleRounds = 4

// scaleCell is one log size's rounds at one client count.
type scaleCell struct {
	calls         int
	elapsed, cpu  time.Duration
	p50s, p99s    []time.Duration
	commits, evts int64
}

func BenchmarkMCPScaling(b *testing.B) {
	d := scaleDuration(b)
	warmup := min(d/4, time.Second)
	maxClients := scaleClients[len(scaleClients)-1]
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * maxClients, MaxIdleConnsPerHost: 2 * maxClients, DisableCompression: true}}
	defer client.CloseIdleConnections()
	message := "benchmark message of a typical short tool argument, 64 bytes...."
	body := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"utils_echo","args":{"message":%q}}]}}}`, message))
	want := []byte(`{\"message\":\"` + message + `\"}`)
	sizes := scaleSizes(b)

	backends := []string{"sqlite"}
	if os.Getenv(testenv.PostgresEnvVar) != "" {
		backends = append(backends, "postgres")
	}
	b.ResetTimer()
	for range b.N {
		for _, backend := range backends {
			// A sub-benchmark per backend, so that its servers and databases go when it ends.
			b.Run("backend="+backend, func(b *testing.B) {
				targets := make([]mcpTarget, len(sizes))
				for i, n := range sizes {
					target := filepath.Join(b.TempDir(), fmt.Sprintf("wb-%d.db", i))
					if backend != "sqlite" {
						target = testenv.PostgresURL(b)
					}
					took := preloadLog(b, backend, target, n)
					targets[i] = newMCPTargetFor(b, backend, target, maxClients, client, body, want)
					chained := waitChained(b, targets[i].srv.M.DB)
					fmt.Printf("mcp_scale backend=%s events=%d preload_s=%.1f chain_catchup_s=%.1f\n", backend, n, took.Seconds(), chained.Seconds())
				}
				round := d / scaleRounds
				for _, clients := range scaleClients {
					for i := range targets {
						if _, err := runLoad(clients, warmup, targets[i].call); err != nil {
							b.Fatalf("%s %d events %d clients warm-up: %v", backend, sizes[i], clients, err)
						}
					}
					cells := make([]scaleCell, len(targets))
					vs := make([][]float64, len(targets))
					for r := range scaleRounds {
						perS := make([]float64, len(targets))
						for k := range targets {
							i := (r + k) % len(targets)
							t, c := &targets[i], &cells[i]
							stop := func() {}
							if clients == 32 && r == 0 {
								stop = startProfiles(b, os.Getenv("WORKBENCH_BENCH_PROFILE_DIR"), fmt.Sprintf("scale_%s_%d_", backend, sizes[i]), round)
							}
							before := t.srv.commitStats()
							got, err := runLoad(clients, round, t.call)
							stop()
							if err != nil {
								b.Fatalf("%s %d events %d clients: %v", backend, sizes[i], clients, err)
							}
							after := t.srv.commitStats()
							c.calls += got.calls
							c.elapsed += got.elapsed
							c.cpu += got.cpu
							c.p50s, c.p99s = append(c.p50s, got.p50), append(c.p99s, got.p99)
							c.commits += after.Commits - before.Commits
							c.evts += after.Events - before.Events
							perS[i] = got.perSecond()
						}
						for i := range targets {
							vs[i] = append(vs[i], perS[i]/perS[0])
						}
					}
					for i, c := range cells {
						perCommit := 0.0
						if c.commits > 0 {
							perCommit = float64(c.evts) / float64(c.commits)
						}
						total := loadResult{calls: c.calls, elapsed: c.elapsed, cpu: c.cpu}
						fmt.Printf("mcp_scale backend=%s events=%d clients=%d calls_per_s=%.0f p50_ms=%.2f p99_ms=%.2f cpu_us_per_call=%.0f events_per_commit=%.1f vs_%s=%.2f\n",
							backend, sizes[i], clients, total.perSecond(), ms(median(c.p50s)), ms(median(c.p99s)), total.cpuPerCall(), perCommit, sizeName(sizes[0]), median(vs[i]))
					}
				}
			})
		}
	}
}

// median is the middle value of xs (the mean of the two middle ones for an even count); xs is sorted
// in place.
func median[T time.Duration | float64](xs []T) T {
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// sizeName is a log size as the table names it: 1000 is 1k, 1000000 is 1M.
func sizeName(n int) string {
	switch {
	case n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return strconv.Itoa(n)
}

// waitChained waits until the audit chain's sealer has chained every event the log holds now (the
// preloaded ones included) and returns how long that took: until then the sealer reads and hashes the
// preloaded log beside the calls, and a cell would measure that catch-up, not a call's cost with the
// log behind it.
func waitChained(tb testing.TB, db *sql.DB) time.Duration {
	tb.Helper()
	ctx := context.Background()
	start := time.Now()
	var events int64
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM events`).Scan(&events); err != nil {
		tb.Fatal(err)
	}
	for deadline := start.Add(10 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var chained int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM audit_chain`).Scan(&chained); err != nil {
			tb.Fatal(err)
		}
		if chained >= events {
			return time.Since(start)
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the audit chain holds %d of %d events after 10 minutes", chained, events)
		}
	}
}
