package testenv

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// PostgresBinDirEnvVar names a directory holding initdb and pg_ctl, overriding the default search.
const PostgresBinDirEnvVar = "WORKBENCH_TEST_PG_BIN"

// defaultBinDir is where Debian and Ubuntu install the PostgreSQL 15 server programs.
const defaultBinDir = "/usr/lib/postgresql/15/bin"

// Cluster is a private PostgreSQL server a single test owns: its own data directory under a temporary
// directory, its own loopback port, trust authentication and fsync on. A test can Stop it to play a
// database outage and Start it again on the same port; the URL stays the same. It is never the shared
// server named by PostgresEnvVar.
type Cluster struct {
	t      testing.TB
	bin    string
	base   string // temporary directory: data/, postgres.log, the Unix socket
	data   string
	port   int
	runAs  *user.User // nil: run the programs as the current user
	mu     sync.Mutex
	closed bool
}

// NewCluster creates a private cluster with initdb, starts it and returns it running. The cluster is
// stopped and its files removed when the test ends. It skips the test when the PostgreSQL server
// programs are not installed, and fails it instead when CI=true.
//
// initdb refuses to run as root, so when the test runs as root the programs run as the "postgres"
// operating-system user (through runuser) and the temporary directory is handed to that user.
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin, err := findBinDir()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("testenv: %v (CI installs PostgreSQL 15)", err)
		}
		t.Skipf("testenv: %v; skipping private-cluster test", err)
	}
	c := &Cluster{t: t, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("testenv: running as root needs the postgres user to run initdb: %v", err)
		}
		c.runAs = u
	}
	base, err := os.MkdirTemp("", "wbpg-")
	if err != nil {
		t.Fatalf("testenv: temp dir: %v", err)
	}
	c.base = base
	c.data = filepath.Join(base, "data")
	t.Cleanup(c.destroy)
	if c.runAs != nil {
		uid, _ := strconv.Atoi(c.runAs.Uid)
		gid, _ := strconv.Atoi(c.runAs.Gid)
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatalf("testenv: hand %s to postgres: %v", base, err)
		}
	}
	port, err := freeLoopbackPort()
	if err != nil {
		t.Fatalf("testenv: free port: %v", err)
	}
	c.port = port

	// --no-sync only skips initdb's own final flush of the new files; the server itself runs with
	// fsync on (below), which is what crash and outage tests depend on.
	if out, err := c.run(2*time.Minute, "initdb", "-D", c.data, "-U", "postgres", "-A", "trust",
		"-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		t.Fatalf("testenv: initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf("\n# testenv private cluster\nlisten_addresses = '127.0.0.1'\nport = %d\n"+
		"unix_socket_directories = '%s'\nfsync = on\nsynchronous_commit = on\nmax_connections = 50\n"+
		"shared_buffers = 16MB\n", port, base)
	f, err := os.OpenFile(filepath.Join(c.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatalf("testenv: open postgresql.conf: %v", err)
	}
	_, werr := f.WriteString(conf)
	if err := errors.Join(werr, f.Close()); err != nil {
		t.Fatalf("testenv: write postgresql.conf: %v", err)
	}
	c.Start()
	return c
}

// URL is the connection string of the cluster's "postgres" database, as superuser, over TCP on loopback.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// Port is the loopback TCP port the cluster listens on.
func (c *Cluster) Port() int { return c.port }

// Start starts the server and waits until it accepts connections. Starting a running cluster fails the test.
func (c *Cluster) Start() {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if out, err := c.run(2*time.Minute, "pg_ctl", "start", "-D", c.data, "-l", filepath.Join(c.base, "postgres.log"),
		"-w", "-t", "90"); err != nil {
		c.t.Fatalf("testenv: start cluster: %v\n%s\n%s", err, out, c.logTail())
	}
}

// Stop shuts the server down in fast mode (open sessions are ended, the server checkpoints and exits)
// and waits until it is gone. Clients then get connection refused until Start.
func (c *Cluster) Stop() {
	c.t.Helper()
	c.stop("fast")
}

// Crash stops the server in immediate mode: no checkpoint, recovery from the WAL at the next Start, as
// after a power cut of the database host.
func (c *Cluster) Crash() {
	c.t.Helper()
	c.stop("immediate")
}

func (c *Cluster) stop(mode string) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if out, err := c.run(2*time.Minute, "pg_ctl", "stop", "-D", c.data, "-m", mode, "-w", "-t", "90"); err != nil {
		c.t.Fatalf("testenv: stop cluster (%s): %v\n%s\n%s", mode, err, out, c.logTail())
	}
}

// destroy stops the server if it runs and removes every file of the cluster.
func (c *Cluster) destroy() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closed = true
	if _, err := os.Stat(filepath.Join(c.data, "postmaster.pid")); err == nil {
		if out, err := c.run(time.Minute, "pg_ctl", "stop", "-D", c.data, "-m", "immediate", "-w"); err != nil {
			c.t.Logf("testenv: stop cluster at cleanup: %v\n%s", err, out)
		}
	}
	if err := os.RemoveAll(c.base); err != nil {
		c.t.Logf("testenv: remove %s: %v", c.base, err)
	}
}

// run runs one of the PostgreSQL programs, as the postgres user when the test runs as root.
func (c *Cluster) run(timeout time.Duration, prog string, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	path := filepath.Join(c.bin, prog)
	var cmd *exec.Cmd
	if c.runAs != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", c.runAs.Username, "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = c.base // the test's working directory may not be readable by the postgres user
	cmd.Env = append(os.Environ(), "LC_ALL=C")
	return cmd.CombinedOutput()
}

func (c *Cluster) logTail() string {
	b, err := os.ReadFile(filepath.Join(c.base, "postgres.log"))
	if err != nil {
		return ""
	}
	s := string(b)
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return "server log:\n" + s
}

// findBinDir returns a directory holding initdb and pg_ctl.
func findBinDir() (string, error) {
	candidates := []string{}
	if d := os.Getenv(PostgresBinDirEnvVar); d != "" {
		candidates = append(candidates, d)
	}
	candidates = append(candidates, defaultBinDir)
	if p, err := exec.LookPath("initdb"); err == nil {
		candidates = append(candidates, filepath.Dir(p))
	}
	for _, d := range candidates {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb and pg_ctl not found in %s", strings.Join(candidates, ", "))
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// freeLoopbackPort asks the kernel for a free TCP port on 127.0.0.1. Another process could take it
// before the server binds it; pg_ctl start then fails loudly rather than reaching the wrong server.
func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
