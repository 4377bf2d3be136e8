package oauthhttp_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// goldenIssuer stands for the server's own address in the golden files, which the test server picks
// at random.
const goldenIssuer = "http://workbench.test"

// TestGoldenMetadata pins the discovery documents an MCP client reads before anything else: the
// authorization server metadata (RFC 8414) and the protected resource metadata of /mcp (RFC 9728) at
// both of its addresses, with the headers that let a browser-based client read them. A change to any
// of them is a change to what every client sees; run go test -update to accept one, and review the
// diff of testdata/.
func TestGoldenMetadata(t *testing.T) {
	e := newEnv(t, envOptions{})
	cases := []struct{ name, path string }{
		{"authorization_server", "/.well-known/oauth-authorization-server"},
		{"protected_resource", "/.well-known/oauth-protected-resource"},
		{"protected_resource_mcp", "/.well-known/oauth-protected-resource/mcp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, e.public+tc.path, nil)
			req.Header.Set("Origin", "http://localhost:6274") // a browser-based client, e.g. the MCP Inspector
			res := e.do(req)
			var body bytes.Buffer
			if err := json.Indent(&body, res.body, "", "  "); err != nil {
				t.Fatalf("status %d, body %q is not JSON: %v", res.status, res.body, err)
			}
			var got strings.Builder
			fmt.Fprintf(&got, "GET %s\n%d\n", tc.path, res.status)
			for _, h := range []string{"Content-Type", "Cache-Control", "Access-Control-Allow-Origin"} {
				fmt.Fprintf(&got, "%s: %s\n", h, res.header.Get(h))
			}
			got.WriteString("\n" + strings.ReplaceAll(body.String(), e.public, goldenIssuer))
			golden := filepath.Join("testdata", "metadata_"+tc.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got.String() != string(want) {
				t.Errorf("document differs from %s\n--- got\n%s\n--- want\n%s", golden, got.String(), want)
			}
		})
	}
}
