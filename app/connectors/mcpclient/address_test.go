package mcpclient

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"testing"

	"github.com/google/uuid"
)

// resolver answers from a table; a name's answers are used in turn, the last one repeating, so a
// test can change the answer between the save-time check and the dial.
type resolver struct {
	mu      sync.Mutex
	answers map[string][]string
	asked   map[string]int
}

func (r *resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.asked == nil {
		r.asked = map[string]int{}
	}
	as := r.answers[host]
	if len(as) == 0 {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	i := min(r.asked[host], len(as)-1)
	r.asked[host]++
	return []netip.Addr{netip.MustParseAddr(as[i])}, nil
}

func TestCheckURLRefusesHostileAddresses(t *testing.T) {
	res := &resolver{answers: map[string][]string{
		"public.example":   {"93.184.216.34"},
		"evil.example":     {"10.0.0.5"},
		"evil6.example":    {"fd00::1"},
		"mapped.example":   {"::ffff:127.0.0.1"},
		"meta.example":     {"169.254.169.254"},
		"loopback.example": {"127.0.0.1"},
	}}
	hostile := []string{
		"https://127.0.0.1/mcp",
		"https://2130706433/mcp",           // decimal 127.0.0.1
		"https://0177.0.0.1/mcp",           // octal
		"https://0x7f.0.0.1/mcp",           // hex parts
		"https://0x7f000001/mcp",           // one hex number
		"https://017700000001/mcp",         // one octal number
		"https://127.1/mcp",                // short form
		"https://0/mcp",                    // 0.0.0.0
		"https://[::1]/mcp",                // IPv6 loopback
		"https://[::ffff:127.0.0.1]/mcp",   // IPv6-mapped IPv4
		"https://[::ffff:a9fe:a9fe]/mcp",   // mapped metadata
		"https://[64:ff9b::a9fe:a9fe]/mcp", // NAT64 of 169.254.169.254
		"https://[64:ff9b::7f00:1]/mcp",    // NAT64 of loopback
		"https://[2002:7f00:1::]/mcp",      // 6to4 of 127.0.0.1
		"https://[2002:a9fe:a9fe::]/mcp",   // 6to4 of metadata
		"https://[fe80::1%25eth0]/mcp",     // link-local with a zone
		"https://[fd00:ec2::254]/mcp",      // AWS metadata over IPv6
		"https://169.254.169.254/latest/meta-data",
		"https://10.0.0.1/mcp",
		"https://172.16.0.1/mcp",
		"https://192.168.1.1/mcp",
		"https://100.64.0.1/mcp", // carrier-grade NAT
		"https://localhost/mcp",
		"https://api.localhost/mcp",
		"https://LOCALHOST./mcp",
		"https://metadata.google.internal/computeMetadata/v1/",
		"https://metadata/mcp",
		"https://intranet.internal/mcp",
		"https://evil.example/mcp",     // a public-looking name resolving to a private address
		"https://evil6.example/mcp",    // to a unique-local IPv6 address
		"https://mapped.example/mcp",   // to an IPv6-mapped loopback
		"https://meta.example/mcp",     // to the metadata address
		"https://loopback.example/mcp", // to loopback without the dev setting
		"https://nowhere.example/mcp",  // no answer
		"https://user:pw@public.example/mcp",
		"http://public.example/mcp", // https only
		"ftp://public.example/mcp",
		"/relative",
	}
	for _, u := range hostile {
		if err := CheckURL(context.Background(), u, false, res); !errors.Is(err, ErrAddress) {
			t.Errorf("%s: %v, want a refusal", u, err)
		}
	}
	if err := CheckURL(context.Background(), "https://public.example/mcp", false, res); err != nil {
		t.Errorf("public: %v", err)
	}
	// The dev setting admits loopback, on http too, and nothing else.
	for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://[::1]:8080/mcp", "https://loopback.example/mcp"} {
		if err := CheckURL(context.Background(), u, true, res); err != nil {
			t.Errorf("%s with loopback allowed: %v", u, err)
		}
	}
	for _, u := range []string{"https://10.0.0.1/mcp", "https://169.254.169.254/", "http://public.example/mcp", "https://[64:ff9b::a9fe:a9fe]/"} {
		if err := CheckURL(context.Background(), u, true, res); !errors.Is(err, ErrAddress) {
			t.Errorf("%s with loopback allowed: %v, want a refusal", u, err)
		}
	}
}

// A public name later pointed inward is caught when a session sends its request: the answer changes
// between the save-time check and the dial.
func TestDialTimeCheckCatchesARebinding(t *testing.T) {
	res := &resolver{answers: map[string][]string{"rebind.example": {"93.184.216.34", "127.0.0.1"}}}
	if err := CheckURL(context.Background(), "https://rebind.example/mcp", false, res); err != nil {
		t.Fatalf("save-time check: %v", err)
	}
	p := New(Options{Resolver: res})
	defer p.Close()
	_, err := p.ListTools(context.Background(), uuid.New(), Endpoint{URL: "https://rebind.example/mcp"})
	if !errors.Is(err, ErrAddress) {
		t.Fatalf("ListTools = %v, want an address refusal", err)
	}
	if res.asked["rebind.example"] < 2 {
		t.Fatal("the request did not resolve the name again")
	}
}
