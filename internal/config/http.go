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

func (h *HTTP) read(getenv func(string) string) error {
	h.MaxConnsPerClient = DefaultMaxConnsPerClient
	if v := strings.TrimSpace(getenv("HOST")); v != "" {
		ip := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		if net.ParseIP(ip) != nil {
			v = ip
		} else if !hostName.MatchString(v) {
			return fmt.Errorf("HOST=%q: want an IP address to bind, such as 127.0.0.1 or ::1 (or a host name), or unset for every interface", v)
		}
		h.Host = v
	}
	if v := strings.TrimSpace(getenv("MAX_CONNS_PER_CLIENT")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1000000 {
			return fmt.Errorf("MAX_CONNS_PER_CLIENT=%q: want a whole number of connections per client address, or 0 for no cap", v)
		}
		h.MaxConnsPerClient = n
	}
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{
		{"HTTP_READ_HEADER_TIMEOUT_SECONDS", &h.ReadHeaderTimeout},
		{"HTTP_READ_TIMEOUT_SECONDS", &h.ReadTimeout},
		{"HTTP_WRITE_TIMEOUT_SECONDS", &h.WriteTimeout},
		{"HTTP_IDLE_TIMEOUT_SECONDS", &h.IdleTimeout},
	} {
		v := strings.TrimSpace(getenv(d.name))
		if v == "" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 3600 {
			return fmt.Errorf("%s=%q: want whole seconds from 1 to 3600", d.name, v)
		}
		*d.to = time.Duration(n) * time.Second
	}
	return nil
}
