package benchmarks

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver, for migrations.Apply

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
)

// postgresBackend runs on a fresh database of the server named by WORKBENCH_TEST_POSTGRES_URL and
// skips when it is unset. The raw baseline writes raw_events, created LIKE events INCLUDING ALL (same
// columns, defaults, constraints and indexes), with the server's own durability settings.
func postgresBackend() backend {
	return backend{name: "postgres", open: func(b *testing.B) opened {
		url := testenv.PostgresURL(b)
		ctx := context.Background()
		db, err := sql.Open("pgx", url)
		if err != nil {
			b.Fatalf("open: %v", err)
		}
		defer db.Close()
		if _, err := migrations.Apply(ctx, db, migrations.Postgres, nil); err != nil {
			b.Fatalf("migrate: %v", err)
		}
		if _, err := db.ExecContext(ctx, `CREATE TABLE raw_events (LIKE events INCLUDING ALL)`); err != nil {
			b.Fatalf("create raw_events: %v", err)
		}
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			b.Fatalf("pool: %v", err)
		}
		b.Cleanup(pool.Close)
		batches := new(atomic.Int64)
		store, err := postgres.New(ctx, pool, &postgres.Options{OnCommit: func([]eventstore.Envelope) { batches.Add(1) }})
		if err != nil {
			b.Fatalf("store: %v", err)
		}
		b.Cleanup(func() { store.Close() })
		return opened{store: store, raw: pgRaw{pool: pool}, batches: batches}
	}}
}

type pgRaw struct{ pool *pgxpool.Pool }

const pgRawInsertOne = `INSERT INTO raw_events (id, stream, version, type, schema_version, data, metadata)
VALUES ($1, $2, $3, $4, $5, $6, $7)`

// pgRawInsertMany is the multi-row form the store itself uses.
const pgRawInsertMany = `INSERT INTO raw_events (id, stream, version, type, schema_version, data, metadata)
SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::int[], $6::bytea[], $7::json[])`

func (p pgRaw) insertOne(ctx context.Context, r rawRow) error {
	_, err := p.pool.Exec(ctx, pgRawInsertOne, r.id, r.stream, r.version, r.typ, r.schema, r.data, r.metadata)
	return err
}

func (p pgRaw) insertBatch(ctx context.Context, rs []rawRow) error {
	var (
		ids      = make([]uuid.UUID, len(rs))
		streams  = make([]string, len(rs))
		versions = make([]int64, len(rs))
		types    = make([]string, len(rs))
		schemas  = make([]int32, len(rs))
		data     = make([][]byte, len(rs))
		metadata = make([][]byte, len(rs))
	)
	for i, r := range rs {
		ids[i], streams[i], versions[i], types[i], schemas[i], data[i], metadata[i] = r.id, r.stream, r.version, r.typ, int32(r.schema), r.data, r.metadata
	}
	return pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, pgRawInsertMany, ids, streams, versions, types, schemas, data, metadata)
		return err
	})
}
