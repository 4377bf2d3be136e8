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

// blocked4 lists the IPv4 blocks refused; see the package documentation for the rule.
var blocked4 = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // this network (RFC 791)
	netip.MustParsePrefix("10.0.0.0/8"),         // private (RFC 1918)
	netip.MustParsePrefix("100.64.0.0/10"),      // shared address space, carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("127.0.0.0/8"),        // loopback (RFC 1122)
	netip.MustParsePrefix("169.254.0.0/16"),     // link-local, cloud metadata 169.254.169.254 (RFC 3927)
	netip.MustParsePrefix("172.16.0.0/12"),      // private (RFC 1918)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments, DS-Lite, PCP/TURN anycast, NAT64 discovery (RFC 6890)
	netip.MustParsePrefix("192.0.2.0/24"),       // documentation TEST-NET-1 (RFC 5737)
	netip.MustParsePrefix("192.88.99.0/24"),     // deprecated 6to4 relay anycast (RFC 7526)
	netip.MustParsePrefix("192.168.0.0/16"),     // private (RFC 1918)
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking (RFC 2544)
	netip.MustParsePrefix("198.51.100.0/24"),    // documentation TEST-NET-2 (RFC 5737)
	netip.MustParsePrefix("203.0.113.0/24"),     // documentation TEST-NET-3 (RFC 5737)
	netip.MustParsePrefix("224.0.0.0/4"),        // multicast (RFC 5771)
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved (RFC 1112)
	netip.MustParsePrefix("255.255.255.255/32"), // limited broadcast (RFC 919), inside 240.0.0.0/4
}

// blocked6 lists the IPv6 blocks refused; anything outside 2000::/3 is refused besides these.
var blocked6 = []netip.Prefix{
	netip.MustParsePrefix("::/96"),          // unspecified, loopback, deprecated IPv4-compatible (RFC 4291)
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("2001::/23"),      // IETF protocol assignments, Teredo 2001::/32 (RFC 2928, 4380)
	netip.MustParsePrefix("2001:db8::/32"),  // documentation (RFC 3849)
	netip.MustParsePrefix("3fff::/20"),      // documentation (RFC 9637)
	netip.MustParsePrefix("fc00::/7"),       // unique local, cloud metadata fd00:ec2::/32 (RFC 4193)
	netip.MustParsePrefix("fec0::/10"),      // deprecated site-local (RFC 3879)
}

var (
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour      = netip.MustParsePrefix("2002::/16")
)

// Check reports whether ip may be dialled. allowLoopback admits loopback addresses only (tests and
// local development, WORKBENCH_DEV_ALLOW_LOOPBACK), and only written as themselves; every other
// non-public address stays refused.
func Check(ip netip.Addr, allowLoopback bool) error {
	ip = ip.WithZone("")
	if ip.Is4In6() {
		ip = ip.Unmap()
	}
	if allowLoopback && ip.IsLoopback() {
		return nil
	}
	return check(ip, ip)
}

// check judges ip; shown is the address as dialled, for the message.
func check(ip, shown netip.Addr) error {
	if ip.Is4() {
		for _, p := range blocked4 {
			if p.Contains(ip) {
				return forbidden(shown, p)
			}
		}
		return nil
	}
	if nat64.Contains(ip) {
		b := ip.As16()
		return check(netip.AddrFrom4([4]byte(b[12:16])), shown)
	}
	if sixToFour.Contains(ip) {
		b := ip.As16()
		return check(netip.AddrFrom4([4]byte(b[2:6])), shown)
	}
	for _, p := range blocked6 {
		if p.Contains(ip) {
			return forbidden(shown, p)
		}
	}
	if !globalUnicast6.Contains(ip) {
		return fmt.Errorf("%w: %s is outside global unicast %s", ErrForbiddenAddress, shown, globalUnicast6)
	}
	return nil
}

func forbidden(ip netip.Addr, p netip.Prefix) error {
	return fmt.Errorf("%w: %s is in %s", ErrForbiddenAddress, ip, p)
}

// Resolver looks up the addresses of a host name; *net.Resolver is one.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ResolveError is a failed lookup, naming the host and nothing about the resolver that was asked.
type ResolveError struct {
	Host     string
	NotFound bool // the name does not exist (as opposed to a lookup that failed)
}

func (e *ResolveError) Error() string {
	if e.NotFound {
		return fmt.Sprintf("ssrf: cannot resolve host %q: no such host", e.Host)
	}
	return fmt.Sprintf("ssrf: cannot resolve host %q: lookup failed", e.Host)
}

// Options configures Dialer and Transport; the zero value refuses loopback and uses the system resolver.
type Options struct {
	AllowLoopback bool
	Resolver      Resolver // nil: net.DefaultResolver
}

// Dialer connects to public addresses only: it resolves names through the configured resolver, checks
// each address, dials the permitted ones by literal, and checks the connected address again.
type Dialer struct {
	opts Options
	net  *net.Dialer
}

// NewDialer returns a Dialer for o.
func NewDialer(o Options) *Dialer {
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	allow := o.AllowLoopback
	return &Dialer{opts: o, net: &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: cannot read %q", ErrForbiddenAddress, address)
			}
			return Check(ap.Addr(), allow)
		},
	}}
}

// DialContext dials address ("host:port") if the host is, or resolves only to, public addresses; names
// with some public and some private addresses are dialled on the public ones only.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read %q", ErrForbiddenAddress, address)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{ip}
	} else {
		ipNetwork := "ip"
		switch network {
		case "tcp4", "udp4":
			ipNetwork = "ip4"
		case "tcp6", "udp6":
			ipNetwork = "ip6"
		}
		addrs, err = d.opts.Resolver.LookupNetIP(ctx, ipNetwork, host)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, fmt.Errorf("ssrf: resolve host %q: %w", host, ctxErr)
			}
			var dnsErr *net.DNSError
			return nil, &ResolveError{Host: host, NotFound: errors.As(err, &dnsErr) && dnsErr.IsNotFound}
		}
		if len(addrs) == 0 {
			return nil, &ResolveError{Host: host, NotFound: true}
		}
	}
	var firstErr error
	for _, ip := range addrs {
		if err := Check(ip, d.opts.AllowLoopback); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		conn, err := d.net.DialContext(ctx, network, net.JoinHostPort(ip.WithZone("").String(), port))
		if err == nil {
			return conn, nil
		}
		if firstErr == nil || errors.Is(firstErr, ErrForbiddenAddress) {
			firstErr = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, firstErr
}

// Transport returns an HTTP transport like http.DefaultTransport whose connections can only reach
// public addresses (and loopback when allowLoopback), resolving names with the system resolver.
func Transport(allowLoopback bool) *http.Transport {
	return NewTransport(Options{AllowLoopback: allowLoopback})
}

// NewTransport returns an HTTP transport like http.DefaultTransport that dials through NewDialer(o).
// Proxies from the environment are not used: a proxy would dial on our behalf and escape the check.
func NewTransport(o Options) *http.Transport {
	d := NewDialer(o)
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DialContext = d.DialContext
	t.MaxIdleConnsPerHost = 32
	return t
}
