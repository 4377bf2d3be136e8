package httpserve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveEdge runs h behind Edge, as the server does, on a loopback listener.
func serveEdge(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	DefaultTimeouts().Apply(srv)
	Edge(srv)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A body far over a route's cap gets the route's answer, not a reset: the client is still sending
// when the handler has answered.
func TestOversizedBodyIsAnsweredNotReset(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/refuse" {
			return // answered without reading the body
		}
		_, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"request body over 1048576 bytes"}}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	base := serveEdge(t, h)
	for _, tc := range []struct {
		path   string
		size   int64
		status int
	}{
		{"/capped", 100 << 20, http.StatusRequestEntityTooLarge},
		{"/capped", 20 << 20, http.StatusRequestEntityTooLarge},
		{"/capped", 512 << 10, http.StatusNoContent},
		{"/refuse", 20 << 20, http.StatusOK},
	} {
		for i := range 3 {
			// A client that sends its whole body before it reads the answer, as many do.
			status, body, err := postThenRead(base, tc.path, tc.size)
			if err != nil {
				t.Fatalf("%s, %d bytes, try %d: %v", tc.path, tc.size, i, err)
			}
			if status != tc.status || (tc.status == 413 && !strings.Contains(body, `"code":-32600`)) {
				t.Fatalf("%s, %d bytes: %d %s", tc.path, tc.size, status, body)
			}
		}
	}
}

// postThenRead writes a POST of size zero bytes whole, then reads the answer.
func postThenRead(base, path string, size int64) (int, string, error) {
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(closeBound))
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", path, size); err != nil {
		return 0, "", err
	}
	if _, err := io.Copy(c, io.LimitReader(zeros{}, size)); err != nil {
		return 0, "", fmt.Errorf("sending the body: %w", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, "", fmt.Errorf("reading the answer: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// The head is capped at 64 KiB: a larger one is 431.
func TestHeaderCap(t *testing.T) {
	base := serveEdge(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	for _, tc := range []struct {
		size   int
		status int
	}{{60 << 10, http.StatusNoContent}, {MaxHeaderBytes + 8<<10, http.StatusRequestHeaderFieldsTooLarge}, {1 << 20, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
		req.Header.Set("X-Big", strings.Repeat("a", tc.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%d-byte header: %v", tc.size, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("%d-byte header: %d, want %d", tc.size, resp.StatusCode, tc.status)
		}
	}
}
