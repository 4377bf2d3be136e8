package httpserve

import (
	"net"
	"net/url"
	"strings"
)

// loopbackNames are the host names that reach this machine over loopback, as a client writes them.
var loopbackNames = []string{"localhost", "127.0.0.1", "::1"}

// Loopback is the set of origins that name the same server as a loopback public URL: with
// SERVER_PUBLIC_URL=http://localhost:8080, also http://127.0.0.1:8080 and http://[::1]:8080 (same
// scheme, same port). A user reaching the server on any of them reaches the same listener, so the
// OAuth metadata, the issuer, the token audience and the MCP Origin check follow the spelling the
// client used. The zero value (a public URL that is not loopback, or has a path) has no aliases.
type Loopback struct {
	scheme, port string
	withPort     bool   // the public URL names its port
	public       string // the public origin as configured
	publicName   string
}

// NewLoopback is the alias set of publicURL; the zero value when publicURL is not an http(s) URL on a
// loopback host at the root of its origin.
func NewLoopback(publicURL string) Loopback {
	u, err := url.Parse(strings.TrimRight(publicURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" || u.User != nil || !IsLoopbackHost(u.Host) {
		return Loopback{}
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(u.Scheme)
	}
	name, _ := splitHost(u.Host, u.Scheme)
	return Loopback{scheme: u.Scheme, port: port, withPort: u.Port() != "", public: u.Scheme + "://" + u.Host, publicName: name}
}

// Enabled reports whether the public URL is loopback, so that aliases exist.
func (l Loopback) Enabled() bool { return l.scheme != "" }

// Base is the origin (scheme://host[:port], no slash) a request names in its Host header when that is
// a loopback alias of the public URL's port; ok is false otherwise (and always when not Enabled). The
// public URL's own host gives the public origin exactly as configured.
func (l Loopback) Base(host string) (base string, ok bool) {
	if !l.Enabled() {
		return "", false
	}
	name, port := splitHost(host, l.scheme)
	if port != l.port || !isLoopbackName(name) {
		return "", false
	}
	if name == l.publicName {
		return l.public, true
	}
	return l.origin(name), true
}

// Origins are the alias origins, the public one first.
func (l Loopback) Origins() []string {
	if !l.Enabled() {
		return nil
	}
	out := []string{l.public}
	for _, n := range loopbackNames {
		if o, _ := l.Base(net.JoinHostPort(n, l.port)); o != l.public {
			out = append(out, o)
		}
	}
	return out
}

// IsOrigin reports whether origin is one of the alias origins exactly as Origins spells it
// (lowercase, no path; an Origin header is compared lowercased).
func (l Loopback) IsOrigin(origin string) bool {
	if !l.Enabled() {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	b, ok := l.Base(u.Host)
	return ok && b == origin
}

func (l Loopback) origin(name string) string {
	h := name
	if strings.Contains(name, ":") {
		h = "[" + name + "]"
	}
	if l.withPort || l.port != defaultPort(l.scheme) {
		h += ":" + l.port
	}
	return l.scheme + "://" + h
}

// IsLoopbackHost reports whether host (a Host header or URL host, with or without a port) names this
// machine over loopback: localhost, 127.0.0.1 or ::1. A DNS-rebinding request names the attacker's
// host instead.
func IsLoopbackHost(host string) bool {
	name, _ := splitHost(host, "")
	return isLoopbackName(name)
}

func isLoopbackName(name string) bool {
	for _, n := range loopbackNames {
		if name == n {
			return true
		}
	}
	return false
}

// splitHost splits a Host header into its lowercased name (IPv6 without brackets, no trailing dot)
// and its port (the scheme's default when absent).
func splitHost(host, scheme string) (name, port string) {
	host = strings.ToLower(strings.TrimSpace(host))
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
	} else {
		name = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	return strings.TrimSuffix(name, "."), port
}

func defaultPort(scheme string) string {
	switch scheme {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
