package ssrf

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// TestSpecialPurposeRegistries walks every entry of the IANA IPv4 and IPv6 Special-Purpose Address
// Registries (plus IPv4 multicast), each by its first address and one further inside it, and states
// whether it may be dialled. The package documentation gives the rule behind each answer.
func TestSpecialPurposeRegistries(t *testing.T) {
	tests := []struct {
		block string
		addrs []string
		ok    bool
	}{
		{"0.0.0.0/8 this network", []string{"0.0.0.0", "0.1.2.3"}, false},
		{"10.0.0.0/8 private", []string{"10.0.0.0", "10.255.255.254"}, false},
		{"100.64.0.0/10 shared address space", []string{"100.64.0.0", "100.127.255.254"}, false},
		{"127.0.0.0/8 loopback", []string{"127.0.0.1", "127.255.255.254"}, false},
		{"169.254.0.0/16 link-local", []string{"169.254.0.1", "169.254.169.254"}, false},
		{"172.16.0.0/12 private", []string{"172.16.0.1", "172.31.255.254"}, false},
		{"192.0.0.0/24 IETF protocol assignments", []string{"192.0.0.0", "192.0.0.200"}, false},
		{"192.0.0.0/29 DS-Lite", []string{"192.0.0.1", "192.0.0.7"}, false},
		{"192.0.0.8/32 IPv4 dummy address", []string{"192.0.0.8"}, false},
		{"192.0.0.9/32 PCP anycast", []string{"192.0.0.9"}, false},
		{"192.0.0.10/32 TURN anycast", []string{"192.0.0.10"}, false},
		{"192.0.0.170/32 NAT64 discovery", []string{"192.0.0.170"}, false},
		{"192.0.0.171/32 NAT64 discovery", []string{"192.0.0.171"}, false},
		{"192.0.2.0/24 TEST-NET-1", []string{"192.0.2.0", "192.0.2.255"}, false},
		{"192.31.196.0/24 AS112-v4", []string{"192.31.196.1", "192.31.196.254"}, true},
		{"192.52.193.0/24 AMT", []string{"192.52.193.1", "192.52.193.254"}, true},
		{"192.88.99.0/24 deprecated 6to4 relay anycast", []string{"192.88.99.1", "192.88.99.254"}, false},
		{"192.168.0.0/16 private", []string{"192.168.0.1", "192.168.255.254"}, false},
		{"192.175.48.0/24 AS112 direct delegation", []string{"192.175.48.1", "192.175.48.254"}, true},
		{"198.18.0.0/15 benchmarking", []string{"198.18.0.1", "198.19.255.254"}, false},
		{"198.51.100.0/24 TEST-NET-2", []string{"198.51.100.1", "198.51.100.254"}, false},
		{"203.0.113.0/24 TEST-NET-3", []string{"203.0.113.1", "203.0.113.254"}, false},
		{"224.0.0.0/4 multicast", []string{"224.0.0.1", "239.255.255.255"}, false},
		{"240.0.0.0/4 reserved", []string{"240.0.0.1", "255.255.255.254"}, false},
		{"255.255.255.255/32 limited broadcast", []string{"255.255.255.255"}, false},

		{"::1/128 loopback", []string{"::1"}, false},
		{"::/128 unspecified", []string{"::"}, false},
		{"::ffff:0:0/96 IPv4-mapped, private", []string{"::ffff:10.0.0.1", "::ffff:127.0.0.1", "::ffff:169.254.169.254"}, false},
		{"::ffff:0:0/96 IPv4-mapped, public", []string{"::ffff:1.1.1.1"}, true},
		{"64:ff9b::/96 NAT64, private", []string{"64:ff9b::", "64:ff9b::10.0.0.1", "64:ff9b::127.0.0.1", "64:ff9b::169.254.169.254"}, false},
		{"64:ff9b::/96 NAT64, public", []string{"64:ff9b::1.1.1.1", "64:ff9b::8.8.8.8"}, true},
		{"64:ff9b:1::/48 local-use NAT64", []string{"64:ff9b:1::1", "64:ff9b:1::1.1.1.1", "64:ff9b:1:ffff::1"}, false},
		{"100::/64 discard-only", []string{"100::", "100::1"}, false},
		{"100:0:0:1::/64 dummy prefix", []string{"100:0:0:1::", "100:0:0:1::1"}, false},
		{"2001::/23 IETF protocol assignments", []string{"2001::", "2001:1ff:ffff::1"}, false},
		{"2001::/32 Teredo", []string{"2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2"}, false},
		{"2001:1::1/128 PCP anycast", []string{"2001:1::1"}, false},
		{"2001:1::2/128 TURN anycast", []string{"2001:1::2"}, false},
		{"2001:2::/48 benchmarking", []string{"2001:2::1", "2001:2:0:ffff::1"}, false},
		{"2001:3::/32 AMT", []string{"2001:3::1"}, false},
		{"2001:4:112::/48 AS112-v6", []string{"2001:4:112::1"}, false},
		{"2001:10::/28 deprecated ORCHID", []string{"2001:10::1", "2001:1f::1"}, false},
		{"2001:20::/28 ORCHIDv2", []string{"2001:20::1", "2001:2f::1"}, false},
		{"2001:30::/28 drone remote ID", []string{"2001:30::1", "2001:3f::1"}, false},
		{"2001:db8::/32 documentation", []string{"2001:db8::1", "2001:db8:ffff::1"}, false},
		{"2002::/16 6to4, private", []string{"2002::", "2002:0a00:0001::", "2002:7f00:0001::1", "2002:a9fe:a9fe::1", "2002:c0a8:0101::1"}, false},
		{"2002::/16 6to4, public", []string{"2002:0101:0101::", "2002:0808:0808::1"}, true},
		{"2620:4f:8000::/48 AS112 direct delegation", []string{"2620:4f:8000::1", "2620:4f:8000:ffff::1"}, true},
		{"3fff::/20 documentation", []string{"3fff::1", "3fff:fff::1"}, false},
		{"5f00::/16 SRv6 SIDs", []string{"5f00::1", "5f00:ffff::1"}, false},
		{"fc00::/7 unique local", []string{"fc00::1", "fd00:ec2::254", "fd12:3456::1"}, false},
		{"fe80::/10 link-local", []string{"fe80::1", "febf::1", "fe80::1%eth0"}, false},
		{"fec0::/10 site-local", []string{"fec0::1", "feff::1"}, false},
		{"ff00::/8 multicast", []string{"ff02::1", "ff0e::1"}, false},
		{"::/96 IPv4-compatible", []string{"::10.0.0.1", "::1.1.1.1", "::127.0.0.1"}, false},
		{"outside 2000::/3", []string{"4000::1", "e000::1"}, false},

		{"public controls", []string{"1.1.1.1", "8.8.8.8", "93.184.215.14", "2606:4700::1111", "2a00:1450:4001:80e::200e", "2001:200::1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.block, func(t *testing.T) {
			for _, a := range tt.addrs {
				err := Check(netip.MustParseAddr(a), false)
				if (err == nil) != tt.ok {
					t.Errorf("Check(%s) = %v, want allowed=%v", a, err, tt.ok)
				}
				if err != nil && !errors.Is(err, ErrForbiddenAddress) {
					t.Errorf("Check(%s): error does not wrap ErrForbiddenAddress: %v", a, err)
				}
			}
		})
	}
}

// The development setting admits loopback written as itself, and nothing else: not the private
// ranges, not loopback reached through a translator or tunnel form.
func TestCheckAllowLoopback(t *testing.T) {
	tests := []struct {
		ip string
		ok bool
	}{
		{"127.0.0.1", true},
		{"127.3.4.5", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"10.1.2.3", false},
		{"169.254.169.254", false},
		{"64:ff9b::127.0.0.1", false},
		{"2002:7f00:0001::", false},
		{"::127.0.0.1", false},
		{"fd00::1", false},
	}
	for _, tt := range tests {
		if err := Check(netip.MustParseAddr(tt.ip), true); (err == nil) != tt.ok {
			t.Errorf("Check(%s, loopback allowed) = %v, want allowed=%v", tt.ip, err, tt.ok)
		}
	}
}

// fakeResolver answers from a table; a name it does not know fails as the system resolver does,
// naming the resolver's address in its error.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	list, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, Server: "127.0.0.53:53", IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

// A real request to a loopback server is refused unless loopback is allowed: the check runs at dial.
func TestTransportRefusesAtDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	if _, err := (&http.Client{Transport: Transport(false)}).Get(srv.URL); !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("loopback reached without the dev setting: %v", err)
	}
	resp, err := (&http.Client{Transport: Transport(true)}).Get(srv.URL)
	if err != nil {
		t.Fatalf("loopback refused with the dev setting: %v", err)
	}
	resp.Body.Close()
}

// Names go through the injected resolver and every address they resolve to is checked: a name
// pointing at the metadata service or at a NAT64 form of a private address is refused, a name
// pointing at the loopback test server is reached under the development setting, and a name with
// a private and a public address is dialled on the public one only.
func TestTransportResolvesThroughInjectedResolver(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	port := u.Port()
	res := fakeResolver{
		"metadata.test":  {"169.254.169.254"},
		"nat64.test":     {"64:ff9b::10.0.0.1"},
		"sixtofour.test": {"2002:0a00:0001::1"},
		"local.test":     {"127.0.0.1"},
		"mixed.test":     {"10.0.0.1", "127.0.0.1"},
	}
	strict := &http.Client{Transport: NewTransport(Options{Resolver: res})}
	dev := &http.Client{Transport: NewTransport(Options{AllowLoopback: true, Resolver: res})}
	for _, host := range []string{"metadata.test", "nat64.test", "sixtofour.test", "local.test"} {
		if _, err := strict.Get("http://" + host + ":" + port + "/"); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: want a refusal, got %v", host, err)
		}
	}
	for _, host := range []string{"metadata.test", "nat64.test", "sixtofour.test"} {
		if _, err := dev.Get("http://" + host + ":" + port + "/"); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s with loopback allowed: want a refusal, got %v", host, err)
		}
	}
	for _, host := range []string{"local.test", "mixed.test"} {
		resp, err := dev.Get("http://" + host + ":" + port + "/")
		if err != nil {
			t.Fatalf("%s with loopback allowed: %v", host, err)
		}
		resp.Body.Close()
	}
}

// A failed lookup names the host and not the resolver that was asked.
func TestResolveErrorHidesResolver(t *testing.T) {
	client := &http.Client{Transport: NewTransport(Options{Resolver: fakeResolver{}})}
	_, err := client.Get("http://nowhere.test/")
	var re *ResolveError
	if !errors.As(err, &re) || re.Host != "nowhere.test" || !re.NotFound {
		t.Fatalf("want a ResolveError for nowhere.test, got %#v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "127.0.0.53") || !strings.Contains(msg, "nowhere.test") {
		t.Fatalf("error names the resolver or not the host: %s", msg)
	}
}
