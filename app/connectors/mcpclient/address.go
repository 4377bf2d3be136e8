package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"github.com/workbench/workbench/internal/ssrf"
)

// ErrAddress is the cause of every refusal of an endpoint URL or of the address it resolves to.
var ErrAddress = errors.New("endpoint address refused")

// refusedNames are host names that always mean this machine or a cloud's metadata service, whatever
// a resolver answers for them.
var refusedNames = []string{"localhost", "metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"}

// CheckURL is the save-time check of an endpoint URL: https (http only on loopback when
// allowLoopback), no user info, and a host that is, or resolves only to, public addresses. A host
// written as a number in any IPv4 encoding (decimal 2130706433, octal 0177.0.0.1, hex 0x7f.1, short
// forms 127.1) is read as the address it encodes.
func CheckURL(ctx context.Context, raw string, allowLoopback bool, resolver ssrf.Resolver) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: %q is not an absolute URL", ErrAddress, raw)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the URL carries user information", ErrAddress)
	}
	host := u.Hostname()
	addrs, err := Resolve(ctx, host, allowLoopback, resolver)
	if err != nil {
		return err
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !allowLoopback || !allLoopback(addrs) {
			return fmt.Errorf("%w: %s must use https", ErrAddress, raw)
		}
	default:
		return fmt.Errorf("%w: scheme %q (want https)", ErrAddress, u.Scheme)
	}
	return nil
}

func allLoopback(addrs []netip.Addr) bool {
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return false
		}
	}
	return len(addrs) > 0
}

// Resolve returns the addresses host stands for, refusing any that is not public (loopback passes
// with allowLoopback). A name resolving to one forbidden address is refused whole.
func Resolve(ctx context.Context, host string, allowLoopback bool, resolver ssrf.Resolver) ([]netip.Addr, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "" {
		return nil, fmt.Errorf("%w: no host", ErrAddress)
	}
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{ip}
	} else if ip, ok := parseLegacyIPv4(h); ok {
		addrs = []netip.Addr{ip}
	} else {
		for _, n := range refusedNames {
			if h == n || strings.HasSuffix(h, "."+n) {
				return nil, fmt.Errorf("%w: %s names this machine or a metadata service", ErrAddress, host)
			}
		}
		if strings.HasSuffix(h, ".internal") || strings.HasSuffix(h, ".local") {
			return nil, fmt.Errorf("%w: %s is not a public name", ErrAddress, host)
		}
		if resolver == nil {
			resolver = net.DefaultResolver
		}
		addrs, err = resolver.LookupNetIP(ctx, "ip", h)
		if err != nil {
			return nil, fmt.Errorf("%w: cannot resolve %s", ErrAddress, host)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("%w: %s has no address", ErrAddress, host)
		}
	}
	for _, a := range addrs {
		if err := ssrf.Check(a, allowLoopback); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrAddress, host, err)
		}
	}
	return addrs, nil
}

// parseLegacyIPv4 reads the inet_aton forms a C resolver accepts: one to four parts, each decimal,
// octal (leading 0) or hex (0x), the last part filling the remaining bytes.
func parseLegacyIPv4(h string) (netip.Addr, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base := 10
		s := p
		switch {
		case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
			base, s = 16, s[2:]
			if s == "" {
				s = "0"
			}
		case len(s) > 1 && s[0] == '0':
			base, s = 8, s[1:]
		}
		v, err := strconv.ParseUint(s, base, 32)
		if err != nil {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		n |= vals[i] << (24 - 8*uint(i))
	}
	rest := uint(8 * (4 - last))
	if vals[last] >= 1<<rest {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}
