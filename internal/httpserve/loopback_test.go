package httpserve

import (
	"slices"
	"testing"
)

func TestLoopbackAliases(t *testing.T) {
	for _, tc := range []struct {
		public  string
		origins []string
		hosts   map[string]string // Host header -> Base ("" = not an alias)
	}{
		{"http://localhost:8080", []string{"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080"},
			map[string]string{"127.0.0.1:8080": "http://127.0.0.1:8080", "[::1]:8080": "http://[::1]:8080", "LocalHost:8080": "http://localhost:8080",
				"127.0.0.1:8081": "", "127.0.0.1": "", "example.com:8080": "", "127.0.0.2:8080": ""}},
		{"http://localhost", []string{"http://localhost", "http://127.0.0.1", "http://[::1]"},
			map[string]string{"127.0.0.1": "http://127.0.0.1", "127.0.0.1:80": "http://127.0.0.1", "[::1]": "http://[::1]", "localhost:8080": ""}},
		{"https://127.0.0.1:8443/", []string{"https://127.0.0.1:8443", "https://localhost:8443", "https://[::1]:8443"},
			map[string]string{"localhost:8443": "https://localhost:8443", "localhost:443": ""}},
		{"https://wb.example.com", nil, map[string]string{"127.0.0.1:443": "", "localhost": ""}},
		{"http://localhost:8080/prefix", nil, map[string]string{"127.0.0.1:8080": ""}},
		{"http://user@localhost:8080", nil, map[string]string{"127.0.0.1:8080": ""}},
	} {
		l := NewLoopback(tc.public)
		if got := l.Origins(); !slices.Equal(got, tc.origins) {
			t.Errorf("%s: Origins() = %v, want %v", tc.public, got, tc.origins)
		}
		for _, o := range tc.origins {
			if !l.IsOrigin(o) {
				t.Errorf("%s: IsOrigin(%q) = false", tc.public, o)
			}
		}
		for host, want := range tc.hosts {
			if got, ok := l.Base(host); got != want || ok != (want != "") {
				t.Errorf("%s: Base(%q) = %q, %v; want %q", tc.public, host, got, ok, want)
			}
		}
	}
	l := NewLoopback("http://localhost:8080")
	for _, o := range []string{"http://127.0.0.1:8080/", "HTTP://127.0.0.1:8080", "http://u@127.0.0.1:8080", "https://127.0.0.1:8080", "http://127.0.0.1:08080", "http://127.0.0.1:8080?x"} {
		if l.IsOrigin(o) {
			t.Errorf("IsOrigin(%q) = true, want false", o)
		}
	}
}
