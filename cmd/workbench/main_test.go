package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
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

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
)

// TestMain lets a test run the real main() in a child process (see TestSIGTERMDrainsAndExits).
func TestMain(m *testing.M) {
	if os.Getenv("WORKBENCH_TEST_RUN_MAIN") == "1" {
		os.Args = append([]string{"workbench"}, strings.Fields(os.Getenv("WORKBENCH_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	code := m.Run()
	removeCompatBinary()
	os.Exit(code)
}

func envFunc(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// serveInProcess starts Main on a loopback port and returns its base URL; the server stops at the end
// of the test.
func serveInProcess(t *testing.T, env map[string]string) (string, *Main) {
	t.Helper()
	cfg, err := config.FromEnv(envFunc(env))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	m.Getenv = envFunc(env) // the settings read past internal/config (plugin clients, audit sinks) come from env too
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Open(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return "http://" + ln.Addr().String(), m
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func waitReady(t *testing.T, base string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body := get(t, base+"/readyz")
		if code == 200 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("never ready: %d %s", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func checkServer(t *testing.T, env map[string]string) {
	base, m := serveInProcess(t, env)
	if code, body := get(t, base+"/healthz"); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("healthz: %d %s", code, body)
	}
	waitReady(t, base)

	// The CLI, against the same database, while the server runs.
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"apikey", "create", "--email", "Ada@Example.com"}, envFunc(env), &out, &errOut); err != nil {
		t.Fatalf("apikey create: %v\n%s", err, errOut.String())
	}
	secret := strings.TrimSpace(out.String())
	if !identitydom.LooksLikeAPIKey(secret) || !strings.Contains(errOut.String(), "created user ada@example.com") {
		t.Fatalf("apikey create printed %q / %q", secret, errOut.String())
	}
	// A newcomer's first key: where it goes, and no talk of replaced keys before there was one.
	if said := errOut.String(); !strings.Contains(said, "Authorization: Bearer <key>") || !strings.Contains(said, "/mcp") || strings.Contains(said, "replaces") {
		t.Fatalf("apikey create said %q; want how to use the key, and nothing of a replaced key", said)
	}
	// The server's own read model learns about the key from the log.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if u, _, err := readerFor(m).UserByKeyHash(context.Background(), identitydom.HashAPIKey(secret)); err == nil && u.Email == "ada@example.com" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server's identity read model never saw the key minted by the CLI")
		}
		time.Sleep(50 * time.Millisecond)
	}

	code, metrics := get(t, base+"/metrics")
	for _, name := range []string{"workbench_http_request_duration_seconds", "workbench_projection_", "go_goroutines"} {
		if code != 200 || !strings.Contains(metrics, name) {
			t.Errorf("metrics lack %s", name)
		}
	}
	if code, body := get(t, base+"/api/nope"); code != 404 || !strings.Contains(body, "not_found") {
		t.Errorf("unknown API path: %d %s", code, body)
	}

	out.Reset()
	if err := run(context.Background(), []string{"events", "tail"}, envFunc(env), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	// Six events of the admin's sign-in link and the CLI's user and key, three of the admin's
	// personal organisation (created, owner added, default agent), and each shipped connector's install.
	shipped, _ := shippedConnectors()
	if n := strings.Count(out.String(), "\n"); n != 9+len(shipped) || strings.Count(out.String(), `"type":"identity.api_key_minted"`) != 1 ||
		strings.Count(out.String(), `"type":"organization.agent_created"`) != 1 {
		t.Fatalf("events tail printed %d lines:\n%s", n, out.String())
	}
	if strings.Contains(out.String(), secret) {
		t.Fatal("the API key appears in clear in the log")
	}
	out.Reset()
	if err := run(context.Background(), []string{"projections", "rebuild"}, envFunc(env), &out, io.Discard); err != nil || !strings.Contains(out.String(), "rebuilt all projections") {
		t.Fatalf("projections rebuild: %v %q", err, out.String())
	}
	var again bytes.Buffer
	if err := run(context.Background(), []string{"apikey", "create", "--email", "ada@example.com"}, envFunc(env), io.Discard, &again); err != nil {
		t.Fatalf("apikey create again: %v\n%s", err, again.String())
	}
	if !strings.Contains(again.String(), "replaces the key this agent had") {
		t.Fatalf("a second apikey create said %q; want that the earlier key stopped working", again.String())
	}
}

func TestServeSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	checkServer(t, map[string]string{"DATABASE_URL": filepath.Join(dir, "wb.db")})
	fi, err := os.Stat(filepath.Join(dir, "encryption.key"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated key file: %v %v", fi, err)
	}
}

func TestServePostgres(t *testing.T) {
	t.Parallel()
	url := testenv.PostgresURL(t)
	checkServer(t, map[string]string{"DATABASE_URL": url, "ENCRYPTION_KEY": "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="})
}

// TestPostgresPoolSized checks that the PostgreSQL pool takes its size from DATABASE_MAX_CONNS and
// keeps that many connections idle after a burst: database/sql's default keeps 2, so a loaded server
// would open (and PostgreSQL fork) a new backend for most queries.
func TestPostgresPoolSized(t *testing.T) {
	t.Parallel()
	cfg, err := config.FromEnv(envFunc(map[string]string{"DATABASE_URL": testenv.PostgresURL(t), "DATABASE_MAX_CONNS": "7"}))
	if err != nil {
		t.Fatal(err)
	}
	m := NewMain(cfg, slog.New(slog.DiscardHandler))
	defer m.Close()
	ctx := context.Background()
	if err := m.openDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	if got := m.DB.Stats().MaxOpenConnections; got != 7 {
		t.Fatalf("MaxOpenConnections = %d, want 7 (DATABASE_MAX_CONNS)", got)
	}
	// A burst: 6 connections in use at once (each held until all are taken), then all returned.
	conns := make([]*sql.Conn, 6)
	for i := range conns {
		c, err := m.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.PingContext(ctx); err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	for _, c := range conns {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if st := m.DB.Stats(); st.Idle != 6 || st.OpenConnections != 6 {
		t.Fatalf("after a burst of 6: %d idle of %d open, want all 6 kept idle", st.Idle, st.OpenConnections)
	}
}

func TestStartupErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"malformed DATABASE_URL", map[string]string{"DATABASE_URL": "postgres://u@h:port/db"}, "DATABASE_URL"},
		{"short ENCRYPTION_KEY", map[string]string{"DATABASE_URL": "DIR/wb.db", "ENCRYPTION_KEY": "c2hvcnQ="}, "ENCRYPTION_KEY"},
		{"PostgreSQL without ENCRYPTION_KEY", map[string]string{"DATABASE_URL": "PG"}, "ENCRYPTION_KEY is required"},
		{"unreachable database", map[string]string{"DATABASE_URL": "postgres://postgres@127.0.0.1:1/none?connect_timeout=1", "WORKBENCH_TEST_CONNECT_TIMEOUT": "1s"}, "cannot reach PostgreSQL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{}
			for k, v := range tt.env {
				v = strings.ReplaceAll(v, "DIR", t.TempDir())
				if v == "PG" {
					v = testenv.PostgresURL(t)
				}
				env[k] = v
			}
			cfg, err := config.FromEnv(envFunc(env))
			if err == nil {
				m := NewMain(cfg, slog.New(slog.DiscardHandler))
				if d, perr := time.ParseDuration(env["WORKBENCH_TEST_CONNECT_TIMEOUT"]); perr == nil {
					m.ConnectTimeout = d
				}
				err = m.Open(context.Background())
				m.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
}

// TestSIGTERMDrainsAndExits runs the real binary's main in a child process, waits until it serves,
// sends SIGTERM, and expects a logged, graceful shutdown and exit status 0.
func TestSIGTERMDrainsAndExits(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "WORKBENCH_TEST_RUN_MAIN=1", "WORKBENCH_TEST_ARGS=serve",
		fmt.Sprintf("PORT=%d", port), "DATABASE_URL="+filepath.Join(t.TempDir(), "wb.db"))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	logDone := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logs.WriteString(sc.Text() + "\n")
		}
		close(logDone)
	}()
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("server never came up: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		<-logDone
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, logs.String())
		}
	case <-time.After(40 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not exit after SIGTERM")
	}
	if !strings.Contains(logs.String(), "shutting down") {
		t.Fatalf("no shutdown log:\n%s", logs.String())
	}
}
