package jots

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/workbench/workbench/domain/jot"
)

// BlobStore keeps jot file bodies by the lowercase hex sha256 of their content. Put is idempotent: a
// body already stored is not written again.
type BlobStore interface {
	Put(ctx context.Context, sum string, body []byte) error
	// Get returns the body stored under sum, or an error matching ErrBlobNotFound.
	Get(ctx context.Context, sum string) ([]byte, error)
}

// ErrBlobNotFound is returned by Get for a sum that is not stored.
var ErrBlobNotFound = errors.New("jots: blob not found")

// SumOf is the blob key of body.
func SumOf(body []byte) string {
	s := sha256.Sum256(body)
	return hex.EncodeToString(s[:])
}

func checkSum(sum string, body []byte) error {
	if !jot.ValidSHA256(sum) {
		return fmt.Errorf("jots: %q is not a sha256 hex digest", sum)
	}
	if body != nil && SumOf(body) != sum {
		return fmt.Errorf("jots: body does not hash to %s", sum)
	}
	return nil
}

// FSBlobs stores blobs as files under Dir: Dir/ab/abcdef… (the first two hex digits fan the files out).
// A blob is written to a temporary file, fsynced and renamed into place, so a reader never sees half of
// one, and a crash leaves at most a stray temporary file.
type FSBlobs struct {
	Dir string
}

var _ BlobStore = FSBlobs{}

func (b FSBlobs) path(sum string) string { return filepath.Join(b.Dir, sum[:2], sum) }

// Put implements BlobStore.
func (b FSBlobs) Put(ctx context.Context, sum string, body []byte) error {
	if err := checkSum(sum, body); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	final := b.path(sum)
	if _, err := os.Stat(final); err == nil {
		return nil
	}
	dir := filepath.Dir(final)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("jots: blob directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+sum[:8]+"-*")
	if err != nil {
		return fmt.Errorf("jots: blob %s: %w", sum, err)
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(body); err != nil {
		tmp.Close()
		return fmt.Errorf("jots: write blob %s: %w", sum, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("jots: sync blob %s: %w", sum, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("jots: close blob %s: %w", sum, err)
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return fmt.Errorf("jots: place blob %s: %w", sum, err)
	}
	// Make the rename durable before the manifest that references it is appended.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// Get implements BlobStore.
func (b FSBlobs) Get(ctx context.Context, sum string) ([]byte, error) {
	if err := checkSum(sum, nil); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	body, err := os.ReadFile(b.path(sum))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrBlobNotFound, sum)
	}
	if err != nil {
		return nil, fmt.Errorf("jots: read blob %s: %w", sum, err)
	}
	return body, nil
}

// PostgresBlobs stores blobs in the jot_blobs table (migration 0200), so every replica of a
// PostgreSQL deployment serves the same jots.
type PostgresBlobs struct {
	DB *sql.DB
}

var _ BlobStore = PostgresBlobs{}

// Put implements BlobStore.
func (b PostgresBlobs) Put(ctx context.Context, sum string, body []byte) error {
	if err := checkSum(sum, body); err != nil {
		return err
	}
	if body == nil {
		body = []byte{}
	}
	_, err := b.DB.ExecContext(ctx, `INSERT INTO jot_blobs (sha256, size, body) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING`,
		sum, len(body), body)
	if err != nil {
		return fmt.Errorf("jots: store blob %s: %w", sum, err)
	}
	return nil
}

// Get implements BlobStore.
func (b PostgresBlobs) Get(ctx context.Context, sum string) ([]byte, error) {
	if err := checkSum(sum, nil); err != nil {
		return nil, err
	}
	var body []byte
	err := b.DB.QueryRowContext(ctx, `SELECT body FROM jot_blobs WHERE sha256 = $1`, sum).Scan(&body)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", ErrBlobNotFound, sum)
	}
	if err != nil {
		return nil, fmt.Errorf("jots: read blob %s: %w", sum, err)
	}
	return body, nil
}
