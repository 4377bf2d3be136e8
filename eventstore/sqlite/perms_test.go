package sqlite_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/workbench/workbench/eventstore/sqlite"
)

func mode(t *testing.T, p string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

// A new database, its WAL and shared-memory files and its directory are for the server's user only,
// whatever the umask lets through.
func TestOpenDBCreatesPrivateFiles(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "workbench.db")
	db, err := sqlite.OpenDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, dir); got != 0o700 {
		t.Errorf("data directory %v, want 0700", got)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if got := mode(t, p); got != 0o600 {
			t.Errorf("%s: %v, want 0600", filepath.Base(p), got)
		}
	}
}

// Files made world-readable before are tightened, and each change is reported.
func TestTightenExistingFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	path := filepath.Join(dir, "workbench.db")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	for _, p := range []string{path, path + "-wal"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o644)
	}
	fixed, err := sqlite.Tighten(path)
	if err != nil || len(fixed) != 3 {
		t.Fatalf("Tighten = %+v, %v; want the directory, the file and its WAL", fixed, err)
	}
	if mode(t, dir) != 0o700 || mode(t, path) != 0o600 || mode(t, path+"-wal") != 0o600 {
		t.Fatalf("modes after Tighten: %v %v %v", mode(t, dir), mode(t, path), mode(t, path+"-wal"))
	}
	if again, err := sqlite.Tighten(path); err != nil || len(again) != 0 {
		t.Fatalf("a second Tighten changed %+v, %v", again, err)
	}
}
