package config

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// HTTP is how the server meets the network.
type HTTP struct {
	// Host is the address to bind (HOST); empty means every interface.
	Host string
	// MaxConnsPerClient caps open connections per remote IP address (MAX_CONNS_PER_CLIENT); 0 turns
	// the cap off.
	MaxConnsPerClient int
	// Deadlines (HTTP_*_TIMEOUT_SECONDS); zero means internal/httpserve's defaults.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
}

// DefaultMaxConnsPerClient is MAX_CONNS_PER_CLIENT when unset.
const DefaultMaxConnsPerClient = 256

var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$`)

// ListenAddr is the address to listen on for port.
func (h HTTP) ListenAddr(port int) string {
	return net.JoinHostPort(h.Host, strconv.Itoa(port))
}

// read reads the bind address, the per-client connection cap and the deadlines.
func (h *HTTP) read(r reader) error {
	if v := r.text("HOST"); v != "" {
		ip := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		if net.ParseIP(ip) != nil {
			v = ip
		} else if !hostName.MatchString(v) {
			return fmt.Errorf("HOST=%q: want an IP address to bind, such as 127.0.0.1 or ::1 (or a host name), or unset for every interface", v)
		}
		h.Host = v
	}
	var err error
	if h.MaxConnsPerClient, err = r.wholeInt("MAX_CONNS_PER_CLIENT", DefaultMaxConnsPerClient); err != nil {
		return err
	}
	if h.ReadHeaderTimeout, err = r.seconds("HTTP_READ_HEADER_TIMEOUT_SECONDS", 0); err != nil {
		return err
	}
	if h.ReadTimeout, err = r.seconds("HTTP_READ_TIMEOUT_SECONDS", 0); err != nil {
		return err
	}
	if h.WriteTimeout, err = r.seconds("HTTP_WRITE_TIMEOUT_SECONDS", 0); err != nil {
		return err
	}
	h.IdleTimeout, err = r.seconds("HTTP_IDLE_TIMEOUT_SECONDS", 0)
	return err
}
