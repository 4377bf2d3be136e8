package crashtest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for migrations.Apply

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// postgresBackend: a fresh database per test (skipped when WORKBENCH_TEST_POSTGRES_URL is unset); the
// child and the parent each open their own pool on it.
func postgresBackend() backend {
	return backend{
		name: "postgres",
		prepare: func(t *testing.T) string {
			url := testenv.PostgresURL(t)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			db, err := sql.Open("pgx", url)
			if err != nil {
				t.Fatalf("open %s: %v", url, err)
			}
			defer db.Close()
			if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
				t.Fatalf("migrate: %v", err)
			}
			return url
		},
		open: func(ctx context.Context, url string) (eventstore.Store, func(), error) {
			pool, err := pgxpool.New(ctx, url)
			if err != nil {
				return nil, nil, fmt.Errorf("pool: %w", err)
			}
			s, err := postgres.New(ctx, pool, nil)
			if err != nil {
				pool.Close()
				return nil, nil, err
			}
			return s, pool.Close, nil
		},
	}
}
