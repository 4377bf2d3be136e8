package browserpool

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/workbench/workbench/internal/ssrf"
)

// Refusal is one request the containment proxy refused.
type Refusal struct {
	// Host is the host:port asked for.
	Host string
	// Reason says why (an address outside the public internet, a scheme other than http/https, …).
	Reason string
}

// maxRefusals is how many refusals a proxy remembers (the newest).
const maxRefusals = 64

// guard is the containment proxy of one Chromium: an HTTP forward proxy on 127.0.0.1 that every request
// of the browser goes through (--proxy-server, with loopback no longer bypassed), dialling through
// internal/ssrf. Plain http:// requests are forwarded; https:// and WebSockets arrive as CONNECT tunnels,
// whose destination is checked when the tunnel is dialled.
type guard struct {
	ln     net.Listener
	srv    *http.Server
	dialer *ssrf.Dialer
	rt     *http.Transport
	log    *slog.Logger

	mu       sync.Mutex
	refused  []Refusal
	seq      uint64 // refusals ever recorded
	tunnels  map[net.Conn]struct{}
	shutting bool
}

func newGuard(opts ssrf.Options, log *slog.Logger) (*guard, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("browser: containment proxy: %w", err)
	}
	g := &guard{ln: ln, dialer: ssrf.NewDialer(opts), rt: ssrf.NewTransport(opts), log: log, tunnels: map[net.Conn]struct{}{}}
	g.rt.MaxIdleConnsPerHost = 8
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() { _ = g.srv.Serve(ln) }()
	return g, nil
}

// addr is the proxy's host:port.
func (g *guard) addr() string { return g.ln.Addr().String() }

// close stops the proxy and cuts every open tunnel.
func (g *guard) close() {
	g.mu.Lock()
	g.shutting = true
	for c := range g.tunnels {
		_ = c.Close()
	}
	g.mu.Unlock()
	_ = g.srv.Close()
	g.rt.CloseIdleConnections()
}

// refusals returns the refusals recorded after the first `since` ones, and the count so far.
func (g *guard) refusals(since uint64) ([]Refusal, uint64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.seq - since
	if n > uint64(len(g.refused)) {
		n = uint64(len(g.refused))
	}
	out := append([]Refusal(nil), g.refused[uint64(len(g.refused))-n:]...)
	return out, g.seq
}

func (g *guard) refuse(w http.ResponseWriter, host, reason string) {
	g.mu.Lock()
	g.seq++
	g.refused = append(g.refused, Refusal{Host: host, Reason: reason})
	if len(g.refused) > maxRefusals {
		g.refused = g.refused[len(g.refused)-maxRefusals:]
	}
	g.mu.Unlock()
	g.log.Info("browser request refused", "host", host, "reason", reason)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Workbench-Refused", "1")
	w.WriteHeader(http.StatusForbidden)
	_, _ = io.WriteString(w, "Workbench refused this request: "+reason+"\n")
}

// reason turns a dial error into the refusal's words; ok is false for an ordinary network failure.
func refusalReason(host string, err error) (string, bool) {
	var re *ssrf.ResolveError
	switch {
	case errors.Is(err, ssrf.ErrForbiddenAddress):
		return fmt.Sprintf("%s is not a public address", host), true
	case errors.As(err, &re):
		return re.Error(), false
	}
	return "", false
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		g.tunnel(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		g.refuse(w, r.Host, fmt.Sprintf("scheme %q is not allowed", r.URL.Scheme))
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := g.rt.RoundTrip(out)
	if err != nil {
		if reason, ok := refusalReason(r.URL.Host, err); ok {
			g.refuse(w, r.URL.Host, reason)
			return
		}
		http.Error(w, "Workbench could not reach "+r.URL.Host, http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	// Flushed as it arrives: a streamed response (server-sent events, long polls) must not wait in a buffer.
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			_ = rc.Flush()
		}
		if err != nil {
			return
		}
	}
}

// hopHeaders are connection-level headers a proxy does not forward.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func (g *guard) tunnel(w http.ResponseWriter, r *http.Request) {
	host := r.Host
	if _, _, err := net.SplitHostPort(host); err != nil {
		g.refuse(w, host, "CONNECT needs host:port")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
	upstream, err := g.dialer.DialContext(ctx, "tcp", host)
	cancel()
	if err != nil {
		if reason, ok := refusalReason(host, err); ok {
			g.refuse(w, host, reason)
			return
		}
		http.Error(w, "Workbench could not reach "+host, http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		upstream.Close()
		http.Error(w, "tunnel not supported", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	client, buf, err := hj.Hijack()
	if err != nil {
		upstream.Close()
		return
	}
	if !g.track(client, upstream) {
		client.Close()
		upstream.Close()
		return
	}
	go func() {
		defer g.untrack(client, upstream)
		done := make(chan struct{}, 2)
		go func() {
			if n := buf.Reader.Buffered(); n > 0 {
				b, _ := buf.Reader.Peek(n)
				_, _ = upstream.Write(b)
			}
			_, _ = io.Copy(upstream, client)
			done <- struct{}{}
		}()
		go func() { _, _ = io.Copy(client, upstream); done <- struct{}{} }()
		<-done
		client.Close()
		upstream.Close()
		<-done
	}()
}

func (g *guard) track(cs ...net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shutting {
		return false
	}
	for _, c := range cs {
		g.tunnels[c] = struct{}{}
	}
	return true
}

func (g *guard) untrack(cs ...net.Conn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range cs {
		delete(g.tunnels, c)
	}
}

// hostOnly strips a port from host:port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}
