package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// BusyTimeoutMillis is how long a connection waits for another writer (another handle or process on
// the same file) before SQLITE_BUSY.
const BusyTimeoutMillis = 10000

// OpenDB opens (creating when missing, with its parent directory) the SQLite database at path, the
// way every part of Workbench uses it:
//
//   - a new file is created 0600 (its -wal and -shm files follow its mode), a new directory 0700;
//     Tighten fixes those made before;
//   - journal_mode=WAL: readers never block the writer and see only committed transactions;
//   - synchronous=FULL: the WAL is fsynced at every commit, so an acknowledged write survives a crash
//     or power loss (https://www.sqlite.org/pragma.html#pragma_synchronous); never OFF;
//   - foreign_keys=ON and busy_timeout on every pooled connection;
//   - _txlock=immediate: every transaction takes the write lock at BEGIN, so a transaction never fails
//     with SQLITE_BUSY when it upgrades from reading to writing.
//
// The caller closes the returned *sql.DB.
func OpenDB(ctx context.Context, path string) (*sql.DB, error) {
	switch {
	case path == "":
		return nil, errors.New("sqlite: empty database path")
	case path == ":memory:" || strings.HasPrefix(path, "file:"):
		return nil, fmt.Errorf("sqlite: %q: want a file path (an in-memory database cannot use WAL; use eventstore/memory)", path)
	case strings.Contains(path, "?"):
		return nil, fmt.Errorf("sqlite: %q: a database path may not contain '?'", path)
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("sqlite: create directory for %s: %w", path, err)
		}
	}
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	dsn := fmt.Sprintf("%s?_txlock=immediate&_busy_timeout=%d&_journal_mode=WAL&_synchronous=FULL&_foreign_keys=1", path, BusyTimeoutMillis)
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	if err := checkPragmas(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return db, nil
}

// checkPragmas confirms that the settings durability depends on took effect (a file system without
// shared memory support, for one, cannot run WAL).
func checkPragmas(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var mode string
	if err := conn.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil {
		return fmt.Errorf("read journal_mode: %w", err)
	}
	if !strings.EqualFold(mode, "wal") {
		return fmt.Errorf("journal_mode is %q, want wal", mode)
	}
	var sync int
	if err := conn.QueryRowContext(ctx, `PRAGMA synchronous`).Scan(&sync); err != nil {
		return fmt.Errorf("read synchronous: %w", err)
	}
	if sync < 2 {
		return fmt.Errorf("synchronous is %d, want FULL (2) or EXTRA (3)", sync)
	}
	return nil
}
