package projections_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/workbench/workbench/migrations"
)

func migrationsDialect(s string) migrations.Dialect { return migrations.Dialect(s) }

// Checkpoint positions are uint64s stored as 20-digit text; the database must order them as numbers
// over the whole range, including above the largest signed 64-bit integer.
func TestCheckpointPositionsCompareAsNumbers(t *testing.T) {
	values := []uint64{0, 1, 9, 10, 99, 1 << 32, math.MaxInt64, math.MaxInt64 + 1, math.MaxUint64 - 1, math.MaxUint64}
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		// Insert in a scrambled order.
		for i, j := range []int{5, 0, 9, 3, 7, 1, 8, 2, 6, 4} {
			v := values[j]
			if _, err := b.db.ExecContext(ctx, `INSERT INTO projection_checkpoints (name, commit_pos, prepare_pos, updated_at) VALUES ($1, $2, $2, CURRENT_TIMESTAMP)`,
				fmt.Sprintf("p%d", i), fmt.Sprintf("%020d", v)); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := b.db.QueryContext(ctx, `SELECT commit_pos FROM projection_checkpoints WHERE commit_pos > $1 ORDER BY commit_pos`, fmt.Sprintf("%020d", uint64(9)))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got []uint64
		for rows.Next() {
			var s string
			var v uint64
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			if v, err = strconv.ParseUint(s, 10, 64); err != nil {
				t.Fatal(err)
			}
			got = append(got, v)
		}
		want := slices.Clone(values[3:])
		if !slices.Equal(got, want) {
			t.Errorf("positions > 9 in SQL order = %v, want %v", got, want)
		}
	})
}
