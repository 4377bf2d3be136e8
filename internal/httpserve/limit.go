package httpserve

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// LimitListener caps the open connections per remote IP address (see the package doc).
type LimitListener struct {
	net.Listener
	max int

	mu   sync.Mutex
	open map[string]int

	refused atomic.Int64
}

// Limit wraps ln so that no remote IP address holds more than max open connections; max <= 0 returns
// ln unchanged.
func Limit(ln net.Listener, max int) net.Listener {
	if max <= 0 {
		return ln
	}
	return &LimitListener{Listener: ln, max: max, open: map[string]int{}}
}

// Refused is how many connections were closed for being over the cap.
func (l *LimitListener) Refused() int64 { return l.refused.Load() }

// Accept returns the next connection whose address is under the cap, closing those over it.
func (l *LimitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr())
		l.mu.Lock()
		if l.open[key] >= l.max {
			l.mu.Unlock()
			l.refused.Add(1)
			c.Close()
			continue
		}
		l.open[key]++
		l.mu.Unlock()
		return &limitedConn{Conn: c, release: func() { l.release(key) }}, nil
	}
}

func (l *LimitListener) release(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[key] <= 1 {
		delete(l.open, key)
		return
	}
	l.open[key]--
}

// clientKey is the IP address of a remote address (the port differs per connection).
func clientKey(a net.Addr) string {
	if tcp, ok := a.(*net.TCPAddr); ok {
		return tcp.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// ReadFrom keeps the TCP connection's sendfile path for files the server copies to the client.
func (c *limitedConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

var errNoCloseWrite = errors.New("httpserve: the connection cannot half-close")

// CloseWrite passes a half-close through to a TCP connection (the server uses it on errors).
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errNoCloseWrite
}
