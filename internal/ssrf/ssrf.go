// Package ssrf keeps outbound requests that Workbench makes on a user's behalf (plugin tool calls, the
// curl proxy, OAuth token exchanges, API-key checks) away from private networks. The check runs when a
// connection is dialled, on the address actually connected to, so a public name later pointed inward
// (DNS rebinding) is caught as well as an address written into a manifest.
package ssrf

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned (wrapped) for a dial to an address outside the public internet.
var ErrForbiddenAddress = errors.New("ssrf: destination address is not public")

var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // this network
	netip.MustParsePrefix("10.0.0.0/8"),     // private (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("127.0.0.0/8"),    // loopback
	netip.MustParsePrefix("169.254.0.0/16"), // link-local, cloud metadata (169.254.169.254)
	netip.MustParsePrefix("172.16.0.0/12"),  // private
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("192.168.0.0/16"), // private
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("224.0.0.0/4"),    // multicast
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("::/128"),         // unspecified
	netip.MustParsePrefix("::1/128"),        // loopback
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
	netip.MustParsePrefix("fc00::/7"),       // unique local
	netip.MustParsePrefix("fe80::/10"),      // link-local
	netip.MustParsePrefix("ff00::/8"),       // multicast
	netip.MustParsePrefix("2001:db8::/32"),  // documentation
	netip.MustParsePrefix("fd00:ec2::/32"),  // cloud metadata (inside fc00::/7, kept for clarity)
}

// Check reports whether ip may be dialled. allowLoopback admits loopback addresses only (tests and
// local development, WORKBENCH_DEV_ALLOW_LOOPBACK); every other non-public address stays refused.
func Check(ip netip.Addr, allowLoopback bool) error {
	ip = ip.Unmap()
	if allowLoopback && ip.IsLoopback() {
		return nil
	}
	for _, p := range blocked {
		if p.Contains(ip) {
			return fmt.Errorf("%w: %s is in %s", ErrForbiddenAddress, ip, p)
		}
	}
	return nil
}

// Dialer returns a dialer that refuses non-public destinations at connect time.
func Dialer(allowLoopback bool) *net.Dialer {
	return &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read %q", ErrForbiddenAddress, address)
			}
			return Check(ap.Addr(), allowLoopback)
		},
	}
}

// Transport returns an HTTP transport like http.DefaultTransport whose connections can only reach
// public addresses (and loopback when allowLoopback). Proxies from the environment are not used: a
// proxy would dial on our behalf and escape the check.
func Transport(allowLoopback bool) *http.Transport {
	d := Dialer(allowLoopback)
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	t.MaxIdleConnsPerHost = 32
	return t
}
