package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/workbench/workbench/eventstore"
)

// The package's tests live in postgres_test, so that they can use the shared test environment (which
// imports this package); these names give them the internals they check.

// SelectColumns is the column list ScanEnvelopes reads.
const SelectColumns = selectColumns

// ScanEnvelopes reads envelopes from rows selected with SelectColumns.
func ScanEnvelopes(rows pgx.Rows) ([]eventstore.Envelope, error) { return scanEnvelopes(rows) }

// Pool is the store's connection pool.
func Pool(s *Store) *pgxpool.Pool { return s.pool }

// Commit writes one batch the way the batcher would.
func Commit(ctx context.Context, s *Store, batch []eventstore.AppendRequest) ([]eventstore.AppendOutcome, error) {
	return s.commit(ctx, batch)
}

// FastBatches counts the batches committed in one round trip.
func FastBatches(s *Store) int64 { return s.fast.Load() }

// PeerCheck and PeerGrace time how a store learns whether a peer listens for its notifications.
const (
	PeerCheck = peerCheck
	PeerGrace = peerGrace
)

// NotifyWanted reports whether the store sends notifications (another store listens).
func NotifyWanted(s *Store) bool { return s.notifyWanted() }

// ListenerPID is the backend pid of the store's listening connection (0 while it has none).
func ListenerPID(s *Store) uint32 { return s.listenerPID.Load() }

// RefusedFast counts the batches whose one-round-trip attempt was refused.
func RefusedFast(s *Store) int64 { return s.slowAfterFast.Load() }
