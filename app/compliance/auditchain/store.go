package auditchain

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/workbench/workbench/eventstore"
)

// Row is one link of the stored chain.
type Row struct {
	Seq      int64
	Position eventstore.Position
	EventID  string
	Hash     Hash
}

// head returns the last stored row (Seq 0 and Genesis when the chain is empty).
func head(ctx context.Context, db *sql.DB) (Row, error) {
	rows, err := readRows(ctx, db, `SELECT seq, commit_pos, prepare_pos, event_id, hash FROM audit_chain ORDER BY seq DESC LIMIT 1`)
	if err != nil || len(rows) == 0 {
		return Row{}, err
	}
	return rows[0], nil
}

// rowsAfter returns up to limit rows with seq > after, in order.
func rowsAfter(ctx context.Context, db *sql.DB, after int64, limit int) ([]Row, error) {
	return readRows(ctx, db, `SELECT seq, commit_pos, prepare_pos, event_id, hash FROM audit_chain WHERE seq > $1 ORDER BY seq LIMIT $2`, after, limit)
}

// rowBefore returns the last row whose position is before pos (Seq 0 and Genesis when none).
func rowBefore(ctx context.Context, db *sql.DB, pos eventstore.Position) (Row, error) {
	rows, err := readRows(ctx, db, `SELECT seq, commit_pos, prepare_pos, event_id, hash FROM audit_chain
		WHERE commit_pos < $1 OR (commit_pos = $1 AND prepare_pos < $2) ORDER BY seq DESC LIMIT 1`,
		int64(pos.Commit), int64(pos.Prepare))
	if err != nil || len(rows) == 0 {
		return Row{}, err
	}
	return rows[0], nil
}

// seqOfEvent returns the seq of the row covering event id, 0 when none does.
func seqOfEvent(ctx context.Context, db *sql.DB, id string) (int64, error) {
	var seq int64
	err := db.QueryRowContext(ctx, `SELECT seq FROM audit_chain WHERE event_id = $1`, id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq, err
}

func readRows(ctx context.Context, db *sql.DB, q string, args ...any) ([]Row, error) {
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("auditchain: read chain: %w", err)
	}
	defer rs.Close()
	var out []Row
	for rs.Next() {
		var r Row
		var commit, prepare int64
		var h []byte
		if err := rs.Scan(&r.Seq, &commit, &prepare, &r.EventID, &h); err != nil {
			return nil, fmt.Errorf("auditchain: read chain: %w", err)
		}
		r.Position = eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}
		copy(r.Hash[:], h)
		if len(h) != HashSize {
			r.Hash = Hash{} // a malformed row never matches a computed hash
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("auditchain: read chain: %w", err)
	}
	return out, nil
}

// Seals returns the stored seals with seq > after, in order; limit <= 0 means all.
func Seals(ctx context.Context, db *sql.DB, after int64, limit int) ([]Seal, error) {
	q := `SELECT seq, commit_pos, prepare_pos, head, sealed_at, key_id, signature FROM audit_seals WHERE seq > $1 ORDER BY seq`
	args := []any{after}
	if limit > 0 {
		q += ` LIMIT $2`
		args = append(args, limit)
	}
	return readSeals(ctx, db, q, args...)
}

// LatestSeal returns the newest seal; ok is false when there is none yet.
func LatestSeal(ctx context.Context, db *sql.DB) (Seal, bool, error) {
	s, err := readSeals(ctx, db, `SELECT seq, commit_pos, prepare_pos, head, sealed_at, key_id, signature FROM audit_seals ORDER BY seq DESC LIMIT 1`)
	if err != nil || len(s) == 0 {
		return Seal{}, false, err
	}
	return s[0], true, nil
}

func readSeals(ctx context.Context, db *sql.DB, q string, args ...any) ([]Seal, error) {
	rs, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("auditchain: read seals: %w", err)
	}
	defer rs.Close()
	var out []Seal
	for rs.Next() {
		var s Seal
		var commit, prepare int64
		var h []byte
		var at string
		if err := rs.Scan(&s.Seq, &commit, &prepare, &h, &at, &s.KeyID, &s.Signature); err != nil {
			return nil, fmt.Errorf("auditchain: read seals: %w", err)
		}
		s.Position = eventstore.Position{Commit: uint64(commit), Prepare: uint64(prepare)}
		copy(s.Head[:], h)
		if s.SealedAt, err = time.Parse(time.RFC3339Nano, at); err != nil {
			return nil, fmt.Errorf("auditchain: seal %d: time %q: %w", s.Seq, at, err)
		}
		out = append(out, s)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("auditchain: read seals: %w", err)
	}
	return out, nil
}

// writeRows stores rows and seals in one transaction. On SQLite (relaxed) the transaction commits on a
// connection of its own with synchronous=NORMAL: in WAL mode that commit is not fsynced by itself but
// by the next commit of the log (whose connections stay FULL), so the sealer never holds the write gate
// through an fsync. The chain is derived data: a crash can lose only rows the sealer recomputes from
// the log when it starts again (it reads where the chain stands from the table).
func writeRows(ctx context.Context, db *sql.DB, gate WriteGate, relaxed bool, rows []Row, seals []Seal) (err error) {
	if gate != nil {
		if err := gate.Lock(ctx); err != nil {
			return err
		}
		defer gate.Unlock()
	}
	var begin interface {
		BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
	} = db
	if relaxed {
		conn, err := db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("auditchain: connection: %w", err)
		}
		var was int
		if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&was); err != nil {
			conn.Close()
			return fmt.Errorf("auditchain: read synchronous: %w", err)
		}
		if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
			conn.Close()
			return fmt.Errorf("auditchain: synchronous: %w", err)
		}
		defer func() {
			// Back to what the pool's other users expect; a connection that cannot be restored is
			// discarded rather than returned.
			if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf(`PRAGMA synchronous = %d`, was)); rerr != nil {
				_ = conn.Raw(func(any) error { return driver.ErrBadConn })
			}
			conn.Close()
		}()
		begin = conn
	}
	tx, err := begin.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("auditchain: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck
	// Multi-row inserts: one statement per 100 rows keeps a page of 1,000 events to ten round trips, and
	// the full-size statement is prepared once per transaction (parsing it is most of SQLite's cost).
	const per = 100
	var full *sql.Stmt
	for i := 0; i < len(rows); i += per {
		chunk := rows[i:min(i+per, len(rows))]
		args := make([]any, 0, 5*len(chunk))
		for _, r := range chunk {
			args = append(args, r.Seq, int64(r.Position.Commit), int64(r.Position.Prepare), r.EventID, r.Hash[:])
		}
		if len(chunk) == per && full == nil {
			if full, err = tx.PrepareContext(ctx, insertRows(per)); err != nil {
				return fmt.Errorf("auditchain: prepare chain insert: %w", err)
			}
			defer full.Close()
		}
		if len(chunk) == per {
			_, err = full.ExecContext(ctx, args...)
		} else {
			_, err = tx.ExecContext(ctx, insertRows(len(chunk)), args...)
		}
		if err != nil {
			return fmt.Errorf("auditchain: store chain rows: %w", err)
		}
	}
	for _, seal := range seals {
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit_seals (seq, commit_pos, prepare_pos, head, sealed_at, key_id, signature)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, seal.Seq, int64(seal.Position.Commit), int64(seal.Position.Prepare),
			seal.Head[:], seal.SealedAt.UTC().Format(time.RFC3339Nano), seal.KeyID, seal.Signature); err != nil {
			return fmt.Errorf("auditchain: store seal: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("auditchain: commit: %w", err)
	}
	return nil
}

// insertRows is the INSERT of n chain rows.
func insertRows(n int) string {
	var q strings.Builder
	q.WriteString(`INSERT INTO audit_chain (seq, commit_pos, prepare_pos, event_id, hash) VALUES `)
	for j := 0; j < n; j++ {
		if j > 0 {
			q.WriteString(", ")
		}
		k := 5 * j
		fmt.Fprintf(&q, "($%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5)
	}
	return q.String()
}
