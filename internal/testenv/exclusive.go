package testenv

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// ExclusiveWait bounds how long Exclusive waits for a lock another test holds.
const ExclusiveWait = 10 * time.Minute

// Exclusive holds the machine-wide lock called name until the test ends: of all the tests that take
// it, in this process and in every other test binary `go test ./...` runs beside it, one runs at a
// time. Tests take it for what the machine has only one of, such as the shared PostgreSQL server's
// connection limit when a test starts several replicas. It fails the test, naming the lock, when
// another holder keeps it longer than ExclusiveWait.
func Exclusive(t testing.TB, name string) {
	t.Helper()
	path := filepath.Join(os.TempDir(), "workbench-test-"+name+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("testenv: open the %s lock: %v", name, err)
	}
	deadline := time.Now().Add(ExclusiveWait)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			t.Fatalf("testenv: take the %s lock (%s): %v", name, path, err)
		}
		if time.Now().After(deadline) {
			f.Close()
			t.Fatalf("testenv: waited %s for the %s lock (%s), which another test still holds", ExclusiveWait, name, path)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
			t.Errorf("testenv: release the %s lock: %v", name, err)
		}
		f.Close()
	})
}
