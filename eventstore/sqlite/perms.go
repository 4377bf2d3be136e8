package sqlite

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// File modes of what holds the database: only the server's user may read the event log and the
// read models (sealed credentials, emails, audit records).
const (
	FileMode fs.FileMode = 0o600
	DirMode  fs.FileMode = 0o700
)

// Tightened is one path whose mode Tighten changed.
type Tightened struct {
	Path     string
	From, To fs.FileMode
}

// Tighten sets the database file at path, its -wal and -shm files and its directory to FileMode and
// DirMode where they grant group or other users any access, and reports what it changed. Missing
// files are skipped; a path it cannot change (another user's) is reported in the error and the
// others are still changed.
func Tighten(path string) ([]Tightened, error) {
	var out []Tightened
	fix := func(p string, want fs.FileMode) error {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if st.Mode().Perm()&0o077 == 0 {
			return nil
		}
		if err := os.Chmod(p, want); err != nil {
			return fmt.Errorf("sqlite: chmod %s: %w", p, err)
		}
		out = append(out, Tightened{Path: p, From: st.Mode().Perm(), To: want})
		return nil
	}
	errs := []error{fix(filepath.Dir(path), DirMode)}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		errs = append(errs, fix(p, FileMode))
	}
	return out, errors.Join(errs...)
}

// createPrivate creates the database file at path with FileMode when it is missing, so SQLite opens
// an existing file: it gives the -wal and -shm files the database file's mode.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, FileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sqlite: create %s: %w", path, err)
	}
	return f.Close()
}
