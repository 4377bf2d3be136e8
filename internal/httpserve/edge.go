package httpserve

import (
	"io"
	"net/http"
	"time"
)

// MaxHeaderBytes caps a request's head (request line and header fields). net/http answers a larger
// one 431 Request Header Fields Too Large (RFC 6585 section 5); it reads up to 4 KiB past the cap
// before it decides.
const MaxHeaderBytes = 64 << 10

// Drain bounds: how much of a request body a handler left unread is read and discarded after its
// answer, and for how long.
const (
	MaxDrainBytes = 256 << 20
	DrainTimeout  = 30 * time.Second
)

// Edge sets the server's header cap and wraps its handler in DrainBodies.
func Edge(srv *http.Server) {
	srv.MaxHeaderBytes = MaxHeaderBytes
	srv.Handler = DrainBodies(srv.Handler)
}

// DrainBodies reads and discards what a handler left of a request body, after sending its answer: a
// body over a route's cap (http.MaxBytesReader) or one a refusal never read. Otherwise net/http
// closes the connection with the rest of the body unread, the kernel answers the client's next
// segments with a TCP reset, and a client still sending loses the answer (a 413, a 401) with it. The
// drain is bounded by MaxDrainBytes and DrainTimeout; past those the connection is closed as before.
// A request that asked for 100-continue and whose body was never read is not drained: its client
// has not sent it; nor is a body whose read failed. The drain ends by the server's ReadTimeout.
func DrainBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		b := &trackedBody{rc: r.Body}
		r.Body = b
		next.ServeHTTP(w, r)
		// A body whose read failed (the read timeout cut a trickling client, the client went away) is
		// not drained: that would hand a slow sender DrainTimeout more.
		if b.eof || b.failed || (r.ContentLength > 0 && b.n >= r.ContentLength) || (!b.read && r.Header.Get("Expect") == "100-continue") {
			return
		}
		// The drain never outlasts the server's ReadTimeout, which bounds the whole request: a client
		// trickling its body gets no longer than it would have without the drain.
		deadline := time.Now().Add(DrainTimeout)
		if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 && start.Add(srv.ReadTimeout).Before(deadline) {
			deadline = start.Add(srv.ReadTimeout)
		}
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(deadline)
		// A body read to its framing's end answers EOF at once, and then nothing needs flushing.
		buf := make([]byte, 32<<10)
		if _, err := io.ReadFull(b.rc, buf[:1]); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return // hijacked, or a writer that cannot flush
		}
		_, _ = io.CopyBuffer(io.Discard, io.LimitReader(b.rc, MaxDrainBytes), buf)
	})
}

// trackedBody is a request body that remembers whether it was read to its end. Its Close does not
// close the body the server holds, so it can still be drained.
type trackedBody struct {
	rc     io.ReadCloser
	n      int64
	read   bool
	eof    bool
	failed bool
}

func (b *trackedBody) Read(p []byte) (int, error) {
	b.read = true
	n, err := b.rc.Read(p)
	b.n += int64(n)
	switch {
	case err == io.EOF:
		b.eof = true
	case err != nil:
		b.failed = true
	}
	return n, err
}

func (b *trackedBody) Close() error { return nil }
