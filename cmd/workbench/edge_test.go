package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// sendWholeThenRead writes a request head and size bytes of body whole, then reads the answer, as a
// client that reads only once it has sent does.
func sendWholeThenRead(t *testing.T, base, head string, size int64) (int, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n", head, size); err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(c, io.LimitReader(zeroReader{}, size)); err != nil {
		t.Fatalf("sending a %d-byte body: %v", size, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading the answer to a %d-byte body: %v", size, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The served edge: the data directory and database are private (an existing one is tightened and
// logged), a head over 64 KiB is 431, a body over /mcp's cap is a JSON-RPC 413 the client receives,
// and /readyz turns unready when the data directory stops taking writes.
func TestServedEdgeLimitsAndReadiness(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	var full atomic.Bool
	s := startE2EWith(t, filepath.Join(dir, "workbench.db"), nil, slog.LevelInfo, func(m *Main) {
		m.probe = &writeProbe{write: func(d string) error {
			if full.Load() {
				return &fs.PathError{Op: "write", Path: d, Err: syscall.ENOSPC}
			}
			return writeProbeFile(d)
		}}
	})
	for _, p := range []string{dir, filepath.Join(dir, "workbench.db"), filepath.Join(dir, "workbench.db-wal")} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s is %v", p, st.Mode().Perm())
		}
	}
	if !strings.Contains(s.logs.tail(1<<20), "tightened") {
		t.Error("no log line says the data directory was tightened")
	}

	req, _ := http.NewRequest(http.MethodGet, s.Base+"/healthz", nil)
	req.Header.Set("X-Big", strings.Repeat("a", 80<<10))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("an 80 KiB header: %d, want 431", resp.StatusCode)
	}

	u := s.user(t, "edge@example.com")
	head := "POST /mcp HTTP/1.1\r\nHost: " + strings.TrimPrefix(s.Base, "http://") + "\r\nAuthorization: Bearer " + u.Key +
		"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
	code, body := sendWholeThenRead(t, s.Base, head, 20<<20)
	var rpc struct {
		JSONRPC string `json:"jsonrpc"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if code != http.StatusRequestEntityTooLarge || json.Unmarshal(body, &rpc) != nil || rpc.JSONRPC != "2.0" || rpc.Error.Code == 0 {
		t.Fatalf("a 20 MiB /mcp body: %d %s", code, body)
	}

	if code, b := get(t, s.Base+"/readyz"); code != 200 {
		t.Fatalf("readyz before the disk filled: %d %s", code, b)
	}
	full.Store(true)
	code, b := get(t, s.Base+"/readyz")
	if code != http.StatusServiceUnavailable || !strings.Contains(b, "the store cannot write: the disk is full") {
		t.Fatalf("readyz on a full disk: %d %s", code, b)
	}
	full.Store(false)
	if code, b := get(t, s.Base+"/readyz"); code != 200 {
		t.Fatalf("readyz after space came back: %d %s", code, b)
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".readyz-probe-*"))
	if len(left) != 0 {
		t.Fatalf("probe files left behind: %v", left)
	}
}
