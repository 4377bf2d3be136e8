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
	"strings"
	"time"

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
	// A body already stored is touched instead of written again: its new mtime tells Sweep that a
	// deploy has just referenced it. Chtimes both checks and touches, in one call on the path: if a
	// sweep has moved the blob aside first, it fails and the body is written anew.
	now := time.Now()
	if err := os.Chtimes(final, now, now); err == nil {
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
	// A body already stored is touched, not written again (see Sweep).
	_, err := b.DB.ExecContext(ctx, `INSERT INTO jot_blobs (sha256, size, body) VALUES ($1, $2, $3)
		ON CONFLICT (sha256) DO UPDATE SET touched_at = now()`,
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

// Sweeper is a BlobStore that can delete the blobs no jot references.
type Sweeper interface {
	// Sweep deletes every blob for which live reports false and that no Put has stored or touched
	// for grace. A Put of the same body racing the sweep keeps the blob: the store checks the touch
	// again as it deletes.
	Sweep(ctx context.Context, live func(sum string) bool, grace time.Duration) (Swept, error)
	// HasGarbage reports whether Sweep would find a blob to delete now, deleting nothing.
	HasGarbage(ctx context.Context, live func(sum string) bool, grace time.Duration) (bool, error)
}

// Swept is what one sweep freed.
type Swept struct {
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

var (
	_ Sweeper = FSBlobs{}
	_ Sweeper = PostgresBlobs{}
)

// gcPrefix marks a blob FSBlobs.Sweep has moved aside and is about to delete.
const gcPrefix = ".gc-"

// Sweep implements Sweeper. A candidate (not live, mtime older than grace) is first renamed aside,
// atomically, and its mtime read again from the moved file: a Put that touched the blob before the
// rename shows there, and the blob is put back; a Put after the rename finds no file and writes the
// body anew. Temporary files older than grace (left by a crash) are removed, and a blob moved aside
// by a sweep that crashed is put back when it was touched since, else removed.
func (b FSBlobs) Sweep(ctx context.Context, live func(sum string) bool, grace time.Duration) (Swept, error) {
	return b.sweep(ctx, live, grace, false)
}

// HasGarbage implements Sweeper.
func (b FSBlobs) HasGarbage(ctx context.Context, live func(sum string) bool, grace time.Duration) (bool, error) {
	out, err := b.sweep(ctx, live, grace, true)
	return out.Blobs > 0, err
}

// sweep is Sweep; dry only counts the candidates and touches nothing.
func (b FSBlobs) sweep(ctx context.Context, live func(sum string) bool, grace time.Duration, dry bool) (Swept, error) {
	var out Swept
	cutoff := time.Now().Add(-grace)
	fans, err := os.ReadDir(b.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("jots: sweep %s: %w", b.Dir, err)
	}
	for _, fan := range fans {
		if !fan.IsDir() || len(fan.Name()) != 2 {
			continue
		}
		dir := filepath.Join(b.Dir, fan.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			return out, fmt.Errorf("jots: sweep %s: %w", dir, err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			name := e.Name()
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return out, fmt.Errorf("jots: sweep %s: %w", name, err)
			}
			old := info.ModTime().Before(cutoff)
			switch {
			case dry && (strings.HasPrefix(name, ".") || !jot.ValidSHA256(name) || !old || live(name)):
				continue
			case dry:
				out.Blobs++
				out.Bytes += info.Size()
				continue
			case strings.HasPrefix(name, gcPrefix):
				sum := strings.TrimPrefix(name, gcPrefix)
				if !old && jot.ValidSHA256(sum) {
					_ = os.Rename(filepath.Join(dir, name), filepath.Join(dir, sum))
				} else {
					_ = os.Remove(filepath.Join(dir, name))
				}
				continue
			case strings.HasPrefix(name, "."):
				if old {
					_ = os.Remove(filepath.Join(dir, name))
				}
				continue
			case !jot.ValidSHA256(name) || !old || live(name):
				continue
			}
			size, err := b.collect(dir, name, cutoff)
			if err != nil {
				return out, err
			}
			if size >= 0 {
				out.Blobs++
				out.Bytes += size
			}
		}
	}
	return out, nil
}

// collect deletes one candidate blob unless a Put touched it; it returns its size, or -1 when kept.
func (b FSBlobs) collect(dir, sum string, cutoff time.Time) (int64, error) {
	final, aside := filepath.Join(dir, sum), filepath.Join(dir, gcPrefix+sum)
	if err := os.Rename(final, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return -1, nil
		}
		return -1, fmt.Errorf("jots: sweep blob %s: %w", sum, err)
	}
	info, err := os.Stat(aside)
	if err != nil {
		return -1, fmt.Errorf("jots: sweep blob %s: %w", sum, err)
	}
	if !info.ModTime().Before(cutoff) {
		// Touched by a Put since it was listed: a deploy references it again.
		if err := os.Rename(aside, final); err != nil {
			return -1, fmt.Errorf("jots: restore blob %s: %w", sum, err)
		}
		return -1, nil
	}
	if err := os.Remove(aside); err != nil {
		return -1, fmt.Errorf("jots: delete blob %s: %w", sum, err)
	}
	return info.Size(), nil
}

// Sweep implements Sweeper. Ages are the database's own clock (touched_at against now()), so every
// replica judges them alike. Each delete checks the age again in its WHERE clause: a Put that touched
// the row first wins, and a delete that wins makes the Put insert the body again.
func (b PostgresBlobs) Sweep(ctx context.Context, live func(sum string) bool, grace time.Duration) (Swept, error) {
	var out Swept
	candidates, err := b.candidates(ctx, live, grace)
	if err != nil {
		return out, err
	}
	secs := grace.Seconds()
	for _, sum := range candidates {
		var size int64
		err := b.DB.QueryRowContext(ctx, `DELETE FROM jot_blobs WHERE sha256 = $1 AND touched_at < now() - make_interval(secs => $2) RETURNING size`,
			sum, secs).Scan(&size)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return out, fmt.Errorf("jots: delete blob %s: %w", sum, err)
		}
		out.Blobs++
		out.Bytes += size
	}
	return out, nil
}

// HasGarbage implements Sweeper.
func (b PostgresBlobs) HasGarbage(ctx context.Context, live func(sum string) bool, grace time.Duration) (bool, error) {
	c, err := b.candidates(ctx, live, grace)
	return len(c) > 0, err
}

// candidates lists the blobs untouched for grace that live does not claim.
func (b PostgresBlobs) candidates(ctx context.Context, live func(sum string) bool, grace time.Duration) ([]string, error) {
	rows, err := b.DB.QueryContext(ctx, `SELECT sha256 FROM jot_blobs WHERE touched_at < now() - make_interval(secs => $1)`, grace.Seconds())
	if err != nil {
		return nil, fmt.Errorf("jots: list blobs: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var sum string
		if err := rows.Scan(&sum); err != nil {
			return nil, err
		}
		if !live(sum) {
			out = append(out, sum)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("jots: list blobs: %w", err)
	}
	return out, nil
}
