package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// closeBound is how long these tests wait for the server to close a connection it should close: a
// bound against hanging, not a performance figure (the deadlines under test are 1 second).
const closeBound = 20 * time.Second

// waitServerClose reads c until the server closes it and returns what it sent; it fails the test if
// the connection is still open after closeBound.
func waitServerClose(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(closeBound))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server held the connection for %s (sent %q)", closeBound, b)
	}
	return string(b)
}

// TestServeDeadlinesAndConnectionCap serves the real server with short deadlines and a small
// per-address cap from the environment, and checks what reaches the network.
func TestServeDeadlinesAndConnectionCap(t *testing.T) {
	t.Parallel()
	const maxConns = 4
	http.DefaultClient.CloseIdleConnections()
	s := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"HTTP_READ_TIMEOUT_SECONDS": "1", "HTTP_IDLE_TIMEOUT_SECONDS": "1", "MAX_CONNS_PER_CLIENT": fmt.Sprint(maxConns),
	}, slog.LevelWarn)
	http.DefaultClient.CloseIdleConnections() // waitReady's connection
	addr := strings.TrimPrefix(s.Base, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// get sends one keep-alive GET on c and reports whether an answer came back.
	get := func(c net.Conn, path, host string) (*http.Response, error) {
		c.SetDeadline(time.Now().Add(closeBound))
		if _, err := fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host); err != nil {
			return nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		c.SetDeadline(time.Time{})
		return resp, nil
	}

	t.Run("a trickled body is cut at the read timeout", func(t *testing.T) {
		c := dial()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\"", addr)
		waitServerClose(t, c)
	})

	t.Run("an idle keep-alive is closed at the idle timeout", func(t *testing.T) {
		c := dial()
		resp, err := get(c, "/healthz", addr)
		if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
			t.Fatalf("healthz: %v %v", resp, err)
		}
		if rest := waitServerClose(t, c); rest != "" {
			t.Fatalf("the server sent %q on an idle connection", rest)
		}
	})

	t.Run("a portal page on another host is redirected to the public URL", func(t *testing.T) {
		c := dial()
		other := strings.Replace(addr, "127.0.0.1", "localhost", 1)
		resp, err := get(c, "/integrations?tab=all", other)
		if err != nil || resp.StatusCode != http.StatusPermanentRedirect || resp.Header.Get("Location") != s.Base+"/integrations?tab=all" {
			t.Fatalf("page on %s: %v %v", other, resp, err)
		}
		resp, err = get(c, "/.well-known/oauth-authorization-server", other)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("metadata on %s: %v %v", other, resp, err)
		}
		c.Close()
	})

	t.Run("the connection over the per-address cap is refused", func(t *testing.T) {
		// Earlier subtests' connections may still hold a place for a moment after they closed, so
		// the refusal may come one early; it must come by connection maxConns+1.
		var held []net.Conn
		served := 0
		for i := 1; i <= maxConns+1; i++ {
			c := dial()
			held = append(held, c)
			if _, err := get(c, "/healthz", addr); err != nil {
				break
			}
			served++
		}
		if served > maxConns {
			t.Fatalf("%d connections from one address were served; the cap is %d", served, maxConns)
		}
		if served == 0 {
			t.Fatal("no connection was served at all")
		}
		for _, c := range held {
			c.Close()
		}
		// The refusal is counted for the operator (once the places are free again).
		for deadline := time.Now().Add(closeBound); ; {
			c := dial()
			fmt.Fprintf(c, "GET /metrics HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", addr)
			body := waitServerClose(t, c)
			if strings.Contains(body, "\nworkbench_http_connections_refused_total ") {
				if strings.Contains(body, "\nworkbench_http_connections_refused_total 0\n") {
					t.Fatal("the refused connection is not counted in /metrics")
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("/metrics never answered with the refusal count: %q", body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestServeBindsHOST serves with HOST=127.0.0.2: the server answers there and not on 127.0.0.1.
func TestServeBindsHOST(t *testing.T) {
	t.Parallel()
	probe, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not a loopback address here: %v", err)
	}
	port := probe.Addr().(*net.TCPAddr).Port
	probe.Close()
	env := map[string]string{
		"HOST": "127.0.0.2", "PORT": fmt.Sprint(port), "DATABASE_URL": filepath.Join(t.TempDir(), "wb.db"),
		"SERVER_PUBLIC_URL": fmt.Sprintf("http://127.0.0.2:%d", port),
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- cmdServe(ctx, nil, envFunc(env), io.Discard, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	client := &http.Client{Timeout: closeBound}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.2:%d/healthz", port))
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-done:
			t.Fatalf("serve stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never answered on 127.0.0.2: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		c.Close()
		t.Fatal("HOST=127.0.0.2, yet the server also listens on 127.0.0.1")
	}
}
