package httpserve

import (
	"net/http"
	"time"
)

// Timeouts are the server's HTTP deadlines; see the package doc.
type Timeouts struct {
	ReadHeader time.Duration
	Read       time.Duration
	Write      time.Duration
	Idle       time.Duration
}

// Default deadlines: generous for a person on a slow link, short enough that an idle or trickling
// connection does not stay for long.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
	DefaultWriteTimeout      = 60 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
)

// DefaultTimeouts returns the default deadlines.
func DefaultTimeouts() Timeouts {
	return Timeouts{ReadHeader: DefaultReadHeaderTimeout, Read: DefaultReadTimeout, Write: DefaultWriteTimeout, Idle: DefaultIdleTimeout}
}

// Apply sets t on srv; a zero field keeps the default.
func (t Timeouts) Apply(srv *http.Server) {
	d := DefaultTimeouts()
	pick := func(v, def time.Duration) time.Duration {
		if v > 0 {
			return v
		}
		return def
	}
	srv.ReadHeaderTimeout = pick(t.ReadHeader, d.ReadHeader)
	srv.ReadTimeout = pick(t.Read, d.Read)
	srv.WriteTimeout = pick(t.Write, d.Write)
	srv.IdleTimeout = pick(t.Idle, d.Idle)
}

// Streaming exempts next's requests from the server's read and write deadlines (see the package
// doc), from their first byte: for a GET whose response streams for as long as it needs to. A handler
// that must first authenticate, or read a bounded body, calls LiftDeadlines itself once it has.
func Streaming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		LiftDeadlines(w)
		next.ServeHTTP(w, r)
	})
}

// LiftDeadlines removes the read and write deadlines of the connection w answers on, for the rest of
// this request; the idle deadline applies again once it is done. Lifting the read deadline matters
// even to a handler that has read its whole body: net/http watches the connection for a client
// hang-up while the handler runs, and a read deadline passing there cancels the request's context.
func LiftDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	// An error means this writer cannot set deadlines (a test recorder): nothing to lift then.
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// ExtendDeadlines sets the read and write deadlines of the connection w answers on to d from now, for
// a request that waits on work bounded by d (a remote tool call): the server's shorter deadlines
// would cut its answer off, or cancel it. A handler calls it once it has authenticated the caller and
// read its (bounded) body.
func ExtendDeadlines(w http.ResponseWriter, d time.Duration) {
	rc := http.NewResponseController(w)
	at := time.Now().Add(d)
	// An error means this writer cannot set deadlines (a test recorder): nothing to extend then.
	_ = rc.SetReadDeadline(at)
	_ = rc.SetWriteDeadline(at)
}
