package ssrf

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		ip            string
		allowLoopback bool
		ok            bool
	}{
		{"93.184.215.14", false, true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", false, true},
		{"127.0.0.1", false, false},
		{"127.0.0.1", true, true},
		{"::1", true, true},
		{"10.1.2.3", true, false},
		{"172.20.0.1", false, false},
		{"192.168.1.1", false, false},
		{"169.254.169.254", true, false},
		{"100.64.0.1", false, false},
		{"0.0.0.0", false, false},
		{"::ffff:10.0.0.1", false, false},
		{"::ffff:127.0.0.1", true, true},
		{"fd12:3456::1", false, false},
		{"fe80::1", false, false},
		{"224.0.0.1", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.ip, func(t *testing.T) {
			err := Check(netip.MustParseAddr(tt.ip), tt.allowLoopback)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%s, %v) = %v", tt.ip, tt.allowLoopback, err)
			}
			if err != nil && !errors.Is(err, ErrForbiddenAddress) {
				t.Fatalf("error does not wrap ErrForbiddenAddress: %v", err)
			}
		})
	}
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
