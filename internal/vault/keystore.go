package vault

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// keyStore is the vault's tables (migration 0010) behind database/sql. Every statement is one text for
// both dialects: modernc.org/sqlite binds $N placeholders by number exactly as PostgreSQL does, and
// both speak INSERT ... ON CONFLICT ... RETURNING.
type keyStore struct {
	db   *sql.DB
	gate WriteGate // nil: none
}

// lockWrites takes the write gate, when there is one, and returns its release.
func (s *keyStore) lockWrites(ctx context.Context) (unlock func(), err error) {
	if s.gate == nil {
		return func() {}, nil
	}
	if err := s.gate.Lock(ctx); err != nil {
		return nil, fmt.Errorf("wait for the write gate: %w", err)
	}
	return s.gate.Unlock, nil
}

// keyRow is one data key as stored: sealed under the master key masterID.
type keyRow struct {
	subject   string
	version   int
	masterID  string
	sealedKey []byte
}

func (s *keyStore) load(ctx context.Context, subject string) ([]keyRow, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT version, master_id, sealed_key FROM vault_data_keys WHERE subject = $1 ORDER BY version`, subject)
	if err != nil {
		return nil, fmt.Errorf("load data keys: %w", err)
	}
	defer rows.Close()
	var out []keyRow
	for rows.Next() {
		r := keyRow{subject: subject}
		if err := rows.Scan(&r.version, &r.masterID, &r.sealedKey); err != nil {
			return nil, fmt.Errorf("load data keys: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load data keys: %w", err)
	}
	return out, nil
}

func (s *keyStore) shredded(ctx context.Context, subject string) (bool, error) {
	var shredded bool
	err := s.db.QueryRowContext(ctx,
		`SELECT shredded_at IS NOT NULL FROM vault_subjects WHERE subject = $1`, subject).Scan(&shredded)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read subject: %w", err)
	}
	return shredded, nil
}

// insertFirst stores a subject's first data key unless the subject was shredded (ErrShredded) or
// already has one (nothing happens). The upsert on vault_subjects takes that row's lock for the rest of
// the transaction, and markShredded takes the same lock, so a first seal and a shred of one subject
// never interleave: either the key is inserted before the shred deletes it, or the seal sees the
// tombstone. (SQLite has one writer at a time; the transaction starts with a write, so it takes the
// write lock at once and never has to upgrade.)
func (s *keyStore) insertFirst(ctx context.Context, r keyRow, now time.Time) (err error) {
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return fmt.Errorf("create data key: %w", err)
	}
	defer unlock() // after the deferred Rollback below
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create data key: begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback() //nolint:errcheck
		}
	}()
	var shredded bool
	if err := tx.QueryRowContext(ctx,
		`INSERT INTO vault_subjects (subject) VALUES ($1)
		 ON CONFLICT (subject) DO UPDATE SET subject = excluded.subject
		 RETURNING shredded_at IS NOT NULL`, r.subject).Scan(&shredded); err != nil {
		return fmt.Errorf("create data key: lock subject: %w", err)
	}
	if shredded {
		return ErrShredded
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO vault_data_keys (subject, version, master_id, sealed_key, created_at) VALUES ($1, $2, $3, $4, $5)
		 ON CONFLICT (subject, version) DO NOTHING`,
		r.subject, r.version, r.masterID, r.sealedKey, now); err != nil {
		return fmt.Errorf("create data key: insert: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create data key: commit: %w", err)
	}
	return nil
}

// markShredded records the subject as shredded and deletes its data keys, in one transaction. It is
// idempotent, and keeps the first shred time.
func (s *keyStore) markShredded(ctx context.Context, subject string, now time.Time) (deleted int64, err error) {
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return 0, fmt.Errorf("shred: %w", err)
	}
	defer unlock() // after the deferred Rollback below
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("shred: begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback() //nolint:errcheck
		}
	}()
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO vault_subjects (subject, shredded_at) VALUES ($1, $2)
		 ON CONFLICT (subject) DO UPDATE SET shredded_at = COALESCE(vault_subjects.shredded_at, excluded.shredded_at)`,
		subject, now); err != nil {
		return 0, fmt.Errorf("shred: mark subject: %w", err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM vault_data_keys WHERE subject = $1`, subject)
	if err != nil {
		return 0, fmt.Errorf("shred: delete data keys: %w", err)
	}
	if deleted, err = res.RowsAffected(); err != nil {
		return 0, fmt.Errorf("shred: delete data keys: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("shred: commit: %w", err)
	}
	return deleted, nil
}

// notUnder returns up to limit data keys sealed under any master key but masterID, after the key
// (subject, version) in key order: a keyset page, so a rotation that stops resumes where it left off.
func (s *keyStore) notUnder(ctx context.Context, masterID, afterSubject string, afterVersion, limit int) ([]keyRow, error) {
	rows, err := s.db.QueryContext(ctx,
		`SELECT subject, version, master_id, sealed_key FROM vault_data_keys
		 WHERE master_id <> $1 AND (subject > $2 OR (subject = $2 AND version > $3))
		 ORDER BY subject, version LIMIT $4`, masterID, afterSubject, afterVersion, limit)
	if err != nil {
		return nil, fmt.Errorf("list data keys: %w", err)
	}
	defer rows.Close()
	var out []keyRow
	for rows.Next() {
		var r keyRow
		if err := rows.Scan(&r.subject, &r.version, &r.masterID, &r.sealedKey); err != nil {
			return nil, fmt.Errorf("list data keys: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list data keys: %w", err)
	}
	return out, nil
}

// reseal replaces sealed data keys in one transaction. Each update applies only while the row is still
// sealed under the master key it was read with, so a concurrent rotation or shred is never overwritten.
// It returns how many rows changed.
func (s *keyStore) reseal(ctx context.Context, from []keyRow, to []keyRow) (n int, err error) {
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return 0, fmt.Errorf("reseal: %w", err)
	}
	defer unlock() // after the deferred Rollback below
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("reseal: begin: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback() //nolint:errcheck
		}
	}()
	for i := range from {
		res, err := tx.ExecContext(ctx,
			`UPDATE vault_data_keys SET master_id = $1, sealed_key = $2
			 WHERE subject = $3 AND version = $4 AND master_id = $5`,
			to[i].masterID, to[i].sealedKey, from[i].subject, from[i].version, from[i].masterID)
		if err != nil {
			return 0, fmt.Errorf("reseal %q v%d: %w", from[i].subject, from[i].version, err)
		}
		k, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("reseal %q v%d: %w", from[i].subject, from[i].version, err)
		}
		n += int(k)
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("reseal: commit: %w", err)
	}
	return n, nil
}

func (s *keyStore) countNotUnder(ctx context.Context, masterID string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM vault_data_keys WHERE master_id <> $1`, masterID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count data keys: %w", err)
	}
	return n, nil
}

func (s *keyStore) usage(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT master_id, COUNT(*) FROM vault_data_keys GROUP BY master_id`)
	if err != nil {
		return nil, fmt.Errorf("count data keys: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count data keys: %w", err)
		}
		out[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("count data keys: %w", err)
	}
	return out, nil
}

// shredCheckpoint is how far ReconcileShreds has read the log.
func (s *keyStore) shredCheckpoint(ctx context.Context) (eventstore.Position, error) {
	var c, p int64
	err := s.db.QueryRowContext(ctx,
		`SELECT commit_pos, prepare_pos FROM vault_shred_checkpoint WHERE id = 1`).Scan(&c, &p)
	if errors.Is(err, sql.ErrNoRows) {
		return eventstore.Start, nil
	}
	if err != nil {
		return eventstore.Start, fmt.Errorf("read shred checkpoint: %w", err)
	}
	return eventstore.Position{Commit: uint64(c), Prepare: uint64(p)}, nil
}

func (s *keyStore) setShredCheckpoint(ctx context.Context, pos eventstore.Position) error {
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return fmt.Errorf("write shred checkpoint: %w", err)
	}
	defer unlock()
	if _, err := s.db.ExecContext(ctx,
		`INSERT INTO vault_shred_checkpoint (id, commit_pos, prepare_pos) VALUES (1, $1, $2)
		 ON CONFLICT (id) DO UPDATE SET commit_pos = excluded.commit_pos, prepare_pos = excluded.prepare_pos`,
		int64(pos.Commit), int64(pos.Prepare)); err != nil {
		return fmt.Errorf("write shred checkpoint: %w", err)
	}
	return nil
}
