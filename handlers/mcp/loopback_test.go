package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/workbench/workbench/internal/httpserve"
)

// loopbackServer serves /mcp on 127.0.0.1 with publicURL built from the listener's port by public
// (e.g. "http://localhost:%d"), wired as cmd/workbench wires it. It returns the base URL to dial and
// the port.
func loopbackServer(t *testing.T, public string) (dial string, port int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port = ln.Addr().(*net.TCPAddr).Port
	pub := public
	if strings.Contains(public, "%d") {
		pub = fmt.Sprintf(public, port)
	}
	srv, err := New(Options{
		Auth: AuthenticatorFunc(func(r *http.Request) (Principal, error) {
			if r.Header.Get("Authorization") == "Bearer key-ada" {
				return Principal{UserID: "user-ada", Method: "api_key", ClientID: "k1"}, nil
			}
			return Principal{}, errors.New("no")
		}),
		Tools:               fakeTools{},
		SessionKey:          bytes.Repeat([]byte("k"), 32),
		AllowedOrigins:      []string{pub},
		Loopback:            httpserve.NewLoopback(pub),
		ResourceMetadataURL: pub + "/.well-known/oauth-protected-resource/mcp",
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: srv}}
	ts.Start()
	t.Cleanup(ts.Close)
	return "http://" + ln.Addr().String(), port
}

// pingAs posts an initialize to /mcp with the given Host header (empty: the dialled address), Origin and key.
func pingAs(t *testing.T, dial, host, origin, key string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, dial, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestLoopbackAliases: with a loopback public URL, localhost, 127.0.0.1 and [::1] on its port are the
// same server: their origins pass the Origin check and a 401 names the resource metadata on the
// address the client used. A foreign Origin, another port, and a foreign Host without any Origin (DNS
// rebinding) are refused.
func TestLoopbackAliases(t *testing.T) {
	dial, port := loopbackServer(t, "http://localhost:%d")
	p := fmt.Sprint(port)
	for _, tc := range []struct {
		name, host, origin string
		want               int
	}{
		{"public_origin", "", "http://localhost:" + p, 200},
		{"ipv4_origin", "", "http://127.0.0.1:" + p, 200},
		{"ipv6_origin", "", "http://[::1]:" + p, 200},
		{"ipv4_origin_on_ipv4_host", "127.0.0.1:" + p, "http://127.0.0.1:" + p, 200},
		{"ipv6_host_no_origin", "[::1]:" + p, "", 200},
		{"localhost_host_no_origin", "localhost:" + p, "", 200},
		{"other_port_origin", "", "http://127.0.0.1:1", 403},
		{"https_origin", "", "https://localhost:" + p, 403},
		{"foreign_origin", "", "http://evil.example", 403},
		{"lookalike_origin", "", "http://localhost.evil.example:" + p, 403},
		{"foreign_host_no_origin", "evil.example:" + p, "", 403},
		{"foreign_host_own_origin", "evil.example:" + p, "http://localhost:" + p, 403},
		{"rebound_ip_host", "10.0.0.1:" + p, "", 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pingAs(t, dial, tc.host, tc.origin, "key-ada").StatusCode; got != tc.want {
				t.Errorf("Host %q Origin %q: status %d, want %d", tc.host, tc.origin, got, tc.want)
			}
		})
	}

	for host, want := range map[string]string{
		"":                   "http://127.0.0.1:" + p,
		"localhost:" + p:     "http://localhost:" + p,
		"[::1]:" + p:         "http://[::1]:" + p,
		"LOCALHOST:" + p:     "http://localhost:" + p,
		"127.0.0.1:1":        "http://localhost:" + p, // another port: not an alias, the public URL
		"localhost.:" + p:    "http://localhost:" + p,
		"127.0.0.1.:" + p:    "http://127.0.0.1:" + p,
		"[0:0::1]:" + p:      "http://localhost:" + p, // not a spelling this server knows
		"[::1]:" + p + "0":   "http://localhost:" + p,
		"127.0.0.1:0" + p:    "http://localhost:" + p,
		"[::ffff:127.0.0.1]": "http://localhost:" + p,
	} {
		resp := pingAs(t, dial, host, "", "")
		if host == "[0:0::1]:"+p || host == "[::ffff:127.0.0.1]" {
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("Host %q: status %d, want 403 (not a loopback name)", host, resp.StatusCode)
			}
			continue
		}
		challenge := resp.Header.Get("WWW-Authenticate")
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `resource_metadata="`+want+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("Host %q: %d, WWW-Authenticate %q; want 401 naming %s's resource metadata", host, resp.StatusCode, challenge, want)
		}
	}
}

// TestNonLoopbackPublicURLUnchanged: a public URL that is not loopback keeps exactly its own origin,
// and a request with no Origin is served whatever its Host (a reverse proxy may name the backend).
func TestNonLoopbackPublicURLUnchanged(t *testing.T) {
	dial, port := loopbackServer(t, "https://wb.example.com")
	for _, tc := range []struct {
		name, host, origin string
		want               int
	}{
		{"public_origin", "", "https://wb.example.com", 200},
		{"loopback_origin", "", fmt.Sprintf("http://127.0.0.1:%d", port), 403},
		{"localhost_origin", "", fmt.Sprintf("http://localhost:%d", port), 403},
		{"other_host_no_origin", "backend.internal", "", 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pingAs(t, dial, tc.host, tc.origin, "key-ada").StatusCode; got != tc.want {
				t.Errorf("Host %q Origin %q: status %d, want %d", tc.host, tc.origin, got, tc.want)
			}
		})
	}
	resp := pingAs(t, dial, "", "", "")
	if c := resp.Header.Get("WWW-Authenticate"); !strings.Contains(c, `resource_metadata="https://wb.example.com/.well-known/oauth-protected-resource/mcp"`) {
		t.Errorf("WWW-Authenticate %q, want the public resource metadata", c)
	}
}
