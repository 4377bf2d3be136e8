package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/vault"
)

// startChild runs the real main in a child process with env added and args. It returns the process,
// its stderr and the base URL it serves on.
func startChild(t *testing.T, args string, env ...string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), "WORKBENCH_TEST_RUN_MAIN=1", "WORKBENCH_TEST_ARGS="+args, fmt.Sprintf("PORT=%d", port)), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr, fmt.Sprintf("http://127.0.0.1:%d", port)
}

// serveUntilHealthy starts the server, waits for /healthz, then stops it with SIGTERM and expects exit 0.
func serveUntilHealthy(t *testing.T, env ...string) {
	t.Helper()
	cmd, stderr, base := startChild(t, "serve", env...)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the server exited before serving: %v\n%s", err, stderr)
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("the server never came up:\n%s", stderr)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not exit after SIGTERM")
	}
}

// TestWrongEncryptionKeyRefusesStart: a server started with key A, then with key B, exits non-zero at
// start with a message naming both key ids; with B current and A previous it starts.
func TestWrongEncryptionKeyRefusesStart(t *testing.T) {
	t.Parallel()
	a, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	db := "DATABASE_URL=" + filepath.Join(t.TempDir(), "wb.db")
	serveUntilHealthy(t, db, "ENCRYPTION_KEY="+a.Encode())

	cmd, stderr, _ := startChild(t, "serve", db, "ENCRYPTION_KEY="+b.Encode())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() == 0 {
			t.Fatalf("start with the wrong key: exit %v, want non-zero\n%s", err, stderr)
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the server started with the wrong key:\n%s", stderr)
	}
	msg := stderr.String()
	if !strings.Contains(msg, "master key id "+a.ID()) || !strings.Contains(msg, "ENCRYPTION_KEY has id "+b.ID()) {
		t.Fatalf("the message does not name the expected key id %s and the given %s:\n%s", a.ID(), b.ID(), msg)
	}
	if strings.Contains(msg, a.Encode()) || strings.Contains(msg, b.Encode()) {
		t.Fatalf("the message contains a key:\n%s", msg)
	}

	serveUntilHealthy(t, db, "ENCRYPTION_KEY="+b.Encode(), "ENCRYPTION_KEY_PREVIOUS="+a.Encode())
	// Until `keys rotate` re-seals the record, B alone is refused; after it, B alone starts.
	path := strings.TrimPrefix(db, "DATABASE_URL=")
	onlyB := envFunc(map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": b.Encode()})
	if err := run(context.Background(), []string{"migrate"}, onlyB, &bytes.Buffer{}, &bytes.Buffer{}); !errors.Is(err, vault.ErrWrongMasterKey) {
		t.Fatalf("B alone before the rotation: %v", err)
	}
	both := envFunc(map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": b.Encode(), "ENCRYPTION_KEY_PREVIOUS": a.Encode()})
	if err := run(context.Background(), []string{"keys", "rotate"}, both, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("keys rotate: %v", err)
	}
	if err := run(context.Background(), []string{"migrate"}, onlyB, &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("B alone after the rotation: %v", err)
	}
}

// The key of the hash that names an invited address in the log is the same before and after a
// master-key rotation (and once the old key is dropped): an invitation recorded before the rotation is
// still found by its invitee's address, and an erasure after it shreds the right subject.
func TestInviteeKeyOutlivesKeyRotation(t *testing.T) {
	t.Parallel()
	a, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	b, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wb.db")
	inviteeKey := func(env map[string]string) []byte {
		t.Helper()
		cfg, err := config.FromEnv(envFunc(env))
		if err != nil {
			t.Fatal(err)
		}
		m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
		m.Getenv = envFunc(env)
		if err := m.Open(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		if len(m.inviteeKey) != 32 {
			t.Fatalf("invitee key of %d bytes", len(m.inviteeKey))
		}
		return m.inviteeKey
	}
	before := inviteeKey(map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": a.Encode()})
	both := map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": b.Encode(), "ENCRYPTION_KEY_PREVIOUS": a.Encode()}
	if err := run(context.Background(), []string{"keys", "rotate"}, envFunc(both), &bytes.Buffer{}, &bytes.Buffer{}); err != nil {
		t.Fatalf("keys rotate: %v", err)
	}
	after := inviteeKey(map[string]string{"DATABASE_URL": path, "ENCRYPTION_KEY": b.Encode()})
	if !bytes.Equal(before, after) {
		t.Fatal("the invitee hash key changed with the master key")
	}
}
