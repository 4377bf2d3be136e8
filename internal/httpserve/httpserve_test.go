package httpserve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// closeBound is how long a test waits for the server to close a connection it should close. It is
// a bound against hanging forever, not a performance figure: the deadlines under test are far shorter.
const closeBound = 15 * time.Second

// serve runs h on a loopback listener with the given deadlines (and per-address cap, when max > 0).
func serve(t *testing.T, h http.Handler, tm Timeouts, max int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	tm.Apply(srv)
	go srv.Serve(Limit(ln, max))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// waitClosed reads from c until the server closes it, and fails if that takes longer than closeBound.
// It returns what the server sent before closing.
func waitClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(closeBound))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %s (got %q)", closeBound, b)
	}
	return string(b)
}

func TestSlowBodyIsCutAtTheReadTimeout(t *testing.T) {
	got := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		got <- err
	})
	addr := serve(t, h, Timeouts{Read: 300 * time.Millisecond}, 0)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Announce a body and send a sliver of it, then nothing more.
	fmt.Fprintf(c, "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nabc")
	waitClosed(t, c)
	select {
	case err := <-got:
		if err == nil {
			t.Fatal("the handler read the whole body; want a read error at the deadline")
		}
	case <-time.After(closeBound):
		t.Fatal("the handler never finished reading")
	}
}

func TestIdleKeepAliveIsClosedAtTheIdleTimeout(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	addr := serve(t, h, Timeouts{Idle: 300 * time.Millisecond}, 0)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	// The connection is now idle; the server must close it.
	if rest := waitClosed(t, c); rest != "" && !strings.HasPrefix(rest, "HTTP/1.1 2") {
		t.Logf("server sent %q before closing", rest)
	}
}

func TestStreamingOutlivesTheWriteTimeout(t *testing.T) {
	const write = 200 * time.Millisecond
	stream := func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first;")
		http.NewResponseController(w).Flush()
		time.Sleep(3 * write)
		io.WriteString(w, "second")
	}
	mux := http.NewServeMux()
	mux.Handle("/stream", Streaming(http.HandlerFunc(stream)))
	mux.HandleFunc("/plain", stream)
	addr := serve(t, mux, Timeouts{Write: write}, 0)

	get := func(path string) (string, error) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return string(b), err
	}
	if body, err := get("/stream"); err != nil || body != "first;second" {
		t.Fatalf("streamed: %q, %v; want the whole stream", body, err)
	}
	// The same handler without the exemption is cut: the deadline is real.
	if body, err := get("/plain"); err == nil && body == "first;second" {
		t.Fatalf("unexempted: got the whole body %q past the write timeout", body)
	}
}

func TestPerAddressCapRefusesTheConnectionOverIt(t *testing.T) {
	const max = 3
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	addr := serve(t, h, Timeouts{}, max)

	// roundTrip sends one request on c and reports whether an answer came back.
	roundTrip := func(c net.Conn) error {
		c.SetDeadline(time.Now().Add(closeBound))
		if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for i := 0; i < max; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		if err := roundTrip(c); err != nil {
			t.Fatalf("connection %d of %d: %v", i+1, max, err)
		}
	}
	over, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	if err := roundTrip(over); err == nil {
		t.Fatalf("connection %d was served; want it closed unanswered", max+1)
	}

	// Closing one frees its place.
	held[0].Close()
	held = held[1:]
	deadline := time.Now().Add(closeBound)
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		err = roundTrip(c)
		c.Close()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a place freed by a close was never reused: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCapIsPerAddress(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	addr := serve(t, h, Timeouts{}, 1)
	// dialFrom opens a connection from a given loopback address (all of 127.0.0.0/8 is loopback).
	dialFrom := func(ip string) net.Conn {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Skipf("cannot dial from %s here: %v", ip, err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	answered := func(c net.Conn) bool {
		c.SetDeadline(time.Now().Add(closeBound))
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	}
	if !answered(dialFrom("127.0.0.1")) {
		t.Fatal("the first connection from 127.0.0.1 was refused")
	}
	if answered(dialFrom("127.0.0.1")) {
		t.Fatal("a second connection from 127.0.0.1 was served over a cap of 1")
	}
	if !answered(dialFrom("127.0.0.2")) {
		t.Fatal("127.0.0.2 was refused for 127.0.0.1's connection")
	}
	for _, tc := range []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 1}, "127.0.0.1"},
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 2}, "::1"},
		{&net.UnixAddr{Name: "@sock", Net: "unix"}, "@sock"},
	} {
		if got := clientKey(tc.addr); got != tc.want {
			t.Errorf("clientKey(%s) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

func TestCanonicalHost(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "served") })
	h, err := CanonicalHost("http://localhost:8080", next)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, method, host, target, fwd string
		wantLocation                    string // "" means served, not redirected
	}{
		{"portal page on another host", "GET", "127.0.0.1:8080", "/integrations?x=1&y=%2F", "", "http://localhost:8080/integrations?x=1&y=%2F"},
		{"root on another host", "HEAD", "127.0.0.1:8080", "/", "", "http://localhost:8080/"},
		{"sign-in link on another host", "GET", "127.0.0.1:8080", "/auth/link/tok", "", "http://localhost:8080/auth/link/tok"},
		{"portal page on the public host", "GET", "localhost:8080", "/integrations", "", ""},
		{"host case differs", "GET", "LOCALHOST:8080", "/", "", ""},
		{"forwarded host is the public one", "GET", "10.0.0.5:8080", "/", "localhost:8080", ""},
		{"POST is never redirected", "POST", "127.0.0.1:8080", "/integrations", "", ""},
		{"mcp", "GET", "127.0.0.1:8080", "/mcp", "", ""},
		{"oauth", "GET", "127.0.0.1:8080", "/oauth/authorize?client_id=x", "", ""},
		{"well-known", "GET", "127.0.0.1:8080", "/.well-known/oauth-authorization-server", "", ""},
		{"curl proxy", "GET", "127.0.0.1:8080", "/c/github/user", "", ""},
		{"jot", "GET", "127.0.0.1:8080", "/j/notes/index.html", "", ""},
		{"jot upload", "GET", "127.0.0.1:8080", "/jots/upload/n/t", "", ""},
		{"api", "GET", "127.0.0.1:8080", "/api/me", "", ""},
		{"healthz", "GET", "127.0.0.1:8080", "/healthz", "", ""},
		{"readyz", "GET", "127.0.0.1:8080", "/readyz", "", ""},
		{"metrics", "GET", "127.0.0.1:8080", "/metrics", "", ""},
		{"a page merely starting with mcp", "GET", "127.0.0.1:8080", "/mcpclients", "", "http://localhost:8080/mcpclients"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "http://"+tc.host+tc.target, nil)
			if tc.fwd != "" {
				r.Header.Set("X-Forwarded-Host", tc.fwd)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if tc.wantLocation == "" {
				if w.Code != http.StatusOK {
					t.Fatalf("status %d (Location %q), want served", w.Code, w.Header().Get("Location"))
				}
				return
			}
			if w.Code != http.StatusPermanentRedirect || w.Header().Get("Location") != tc.wantLocation {
				t.Fatalf("status %d Location %q, want 308 to %q", w.Code, w.Header().Get("Location"), tc.wantLocation)
			}
		})
	}
	if _, err := CanonicalHost("localhost:8080", next); err == nil {
		t.Fatal("a public URL without scheme was accepted")
	}
}
