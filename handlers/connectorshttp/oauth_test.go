package connectorshttp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/internal/testenv"
)

// oauthNode is a Workbench node with one dynamic OAuth connector on the test's resource server,
// behind the real routes on a portal session.
type oauthNode struct {
	env     *connectorstest.Env
	c       client
	browser *http.Client // the operator's browser: follows no redirect, so each hop is checked
}

func dialects(t *testing.T) []bool {
	pg := []bool{false}
	if os.Getenv(testenv.PostgresEnvVar) != "" || os.Getenv("CI") == "true" {
		pg = append(pg, true)
	}
	return pg
}

func newOAuthNode(t *testing.T, pg bool, endpoint string) *oauthNode {
	t.Helper()
	return newNode(t, pg, map[string]string{
		"hosted/connector.json": fmt.Sprintf(`{"slug":"hosted","display_name":"Hosted","description":"An OAuth MCP server in the tests.","endpoint":{"url":%q},"auth":{"kind":"oauth","oauth":{"strategy":"dynamic"}}}`, endpoint),
	}, nil, nil)
}

// signIn goes where Connect sent the operator, and back to the callback with the portal cookie; it
// returns where the callback sent the browser.
func (n *oauthNode) signIn(t *testing.T, authorizationURL string) *url.URL {
	t.Helper()
	resp, err := n.browser.Get(authorizationURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("authorize: %d", resp.StatusCode)
	}
	cb := resp.Header.Get("Location")
	if !strings.HasPrefix(cb, n.c.base+"/api/mcp/oauth/callback?") {
		t.Fatalf("the authorization server sent the browser to %q", cb)
	}
	req, _ := http.NewRequest(http.MethodGet, cb, nil)
	req.AddCookie(n.c.cookie)
	resp, err = n.browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode == http.StatusBadRequest && strings.Contains(string(body), "expired") {
		return &url.URL{}
	}
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("callback: %d %s", resp.StatusCode, body)
	}
	u, _ := url.Parse(resp.Header.Get("Location"))
	return u
}

func (n *oauthNode) connect(owner, id string) (int, map[string]any) {
	code, _, b := n.c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_hosted", "owner_scope": owner, "owner_id": id}, true)
	return code, b
}

// The dynamic strategy end to end through the real routes: discovery, registration, the sign-in with
// PKCE, the callback, the tools, a 401 then one refresh and one retry, a refresh before expiry,
// invalid_grant, and denied callbacks over a disconnected and over a new login.
func TestOAuthDynamicFlow(t *testing.T) {
	for _, pg := range dialects(t) {
		t.Run(fmt.Sprintf("postgres=%v", pg), func(t *testing.T) {
			a := connectorstest.NewOAuthServer(t)
			n := newOAuthNode(t, pg, a.Resource)
			agent, guild := connectorstest.Agent.String(), connectorstest.Guild.String()

			code, _, b := n.c.do("GET", "/api/mcp/servers", nil, false)
			if code != 200 || !strings.Contains(fmt.Sprint(b), "connect_support:oauth") {
				t.Fatalf("catalog: %d %v", code, b)
			}
			code, b = n.connect("agent", agent)
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			au, _ := url.Parse(b["authorization_url"].(string))
			if b["authorization_host"] != au.Host || au.Host != strings.TrimPrefix(a.AS.URL, "http://") || au.Query().Get("redirect_uri") != n.c.base+"/api/mcp/oauth/callback" {
				t.Fatalf("connect answered %v", b)
			}
			conn := b["connection"].(map[string]any)
			id := conn["id"].(string)
			if conn["status"] != "pending" {
				t.Fatalf("before the callback: %v", conn)
			}
			back := n.signIn(t, au.String())
			if back.Path != "/connectors" || back.Query().Get("oauth") != "connected" || back.Query().Get("connection") != id {
				t.Fatalf("callback sent the browser to %s", back)
			}
			code, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false)
			tools, _ := d["tools"].([]any)
			if code != 200 || d["status"] != "connected" || len(tools) != 1 {
				t.Fatalf("after the callback: %d %v", code, d)
			}
			raw, _ := json.Marshal(d)
			if strings.Contains(string(raw), "at-") || strings.Contains(string(raw), "rt-") {
				t.Fatalf("the detail shows a token: %s", raw)
			}
			call := func() (int, map[string]any) {
				code, _, b := n.c.do("POST", "/api/mcp/connections/"+id+"/call", map[string]any{"tool": "hosted_echo", "arguments": map[string]any{"text": "hi"}}, true)
				return code, b
			}
			if code, b := call(); code != 200 || !strings.Contains(fmt.Sprint(b), "echo: hi") {
				t.Fatalf("call: %d %v", code, b)
			}
			// A second owner signs in with the stored client: no second registration.
			code, b = n.connect("guild", guild)
			if code != 201 || a.Count(func(a *connectorstest.OAuthServer) int { return a.Registrations }) != 1 || len(n.env.Events(t, "connector.oauth_client_registered")) != 1 {
				t.Fatalf("second connect: %d %v, %d registrations", code, b, a.Registrations)
			}
			guildURL := b["authorization_url"].(string)
			guildID := b["connection"].(map[string]any)["id"].(string)

			// A 401 gets one refresh and one retry.
			a.RevokeAccess()
			if code, b := call(); code != 200 || !strings.Contains(fmt.Sprint(b), "echo: hi") || a.Count(func(a *connectorstest.OAuthServer) int { return a.Refreshes }) != 1 {
				t.Fatalf("call after a 401: %d %v, %d refreshes", code, b, a.Refreshes)
			}
			// A token about to expire is refreshed before the call, once for calls made together
			// (the refresh token rotates: a second refresh with the old one would be invalid_grant),
			// and no 401 reaches a call.
			before := a.Count(func(a *connectorstest.OAuthServer) int { return a.Unauthorized })
			n.env.Advance(3590 * time.Second)
			var wg sync.WaitGroup
			codes := make([]int, 6)
			for i := range codes {
				wg.Add(1)
				go func() { defer wg.Done(); codes[i], _ = call() }()
			}
			wg.Wait()
			if a.Count(func(a *connectorstest.OAuthServer) int { return a.Refreshes }) != 2 || a.Count(func(a *connectorstest.OAuthServer) int { return a.Unauthorized }) != before {
				t.Fatalf("calls near expiry: %v, %d refreshes", codes, a.Refreshes)
			}
			for _, c := range codes {
				if c != 200 {
					t.Fatalf("calls near expiry: %v", codes)
				}
			}
			// invalid_grant marks the login disconnected.
			a.RevokeAll()
			if code, b := call(); code != 422 || !strings.Contains(fmt.Sprint(b), "sign in again") {
				t.Fatalf("call after invalid_grant: %d %v", code, b)
			}
			if _, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false); d["status"] != "disconnected" {
				t.Fatalf("after invalid_grant: %v", d)
			}
			// A sign-in started again over the disconnected login (retried: nothing is connected before
			// the callback), denied: it stays disconnected.
			code, b = n.connect("agent", agent)
			if code != 201 || b["connection"].(map[string]any)["id"] != id || b["outcome"] != "retried" {
				t.Fatalf("retry: %d %v", code, b)
			}
			a.Set(func(a *connectorstest.OAuthServer) { a.Deny = true })
			if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "denied" {
				t.Fatalf("denied retry sent the browser to %s", back)
			}
			if _, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false); d["status"] != "disconnected" {
				t.Fatalf("after a denied retry: %v", d)
			}
			// A new login, denied: it is gone. (The first sign-in's state has expired: connect again,
			// which opens a new sign-in over the same pending login.)
			if back := n.signIn(t, guildURL); back.Path != "" || back.Host != "" {
				t.Fatalf("an expired state: %s", back)
			}
			code, b = n.connect("guild", guild)
			if code != 201 || b["connection"].(map[string]any)["id"] != guildID || b["outcome"] != "retried" {
				t.Fatalf("connect again: %d %v", code, b)
			}
			if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "denied" {
				t.Fatalf("denied new login sent the browser to %s", back)
			}
			if code, _, _ := n.c.do("GET", "/api/mcp/connections/"+guildID, nil, false); code != 404 {
				t.Fatalf("a denied new login: %d", code)
			}
		})
	}
}

// Discovery refuses documents that do not match, a server with no registration, and addresses the
// SSRF check refuses (a link-local metadata address, even with loopback allowed).
func TestOAuthDiscoveryRefusals(t *testing.T) {
	cases := []struct {
		name  string
		setup func(a *connectorstest.OAuthServer)
		want  string
	}{
		{"issuer mismatch", func(a *connectorstest.OAuthServer) { a.Issuer = "http://127.0.0.1:1/other" }, "issuer"},
		{"resource mismatch", func(a *connectorstest.OAuthServer) { a.Resource = "http://127.0.0.1:1/mcp" }, "resource"},
		{"no registration", func(a *connectorstest.OAuthServer) { a.NoRegistration = true }, "setup_state:unsupported"},
		{"metadata URL at the metadata address", func(a *connectorstest.OAuthServer) { a.ResourceMetadataURL = "http://169.254.169.254/latest/meta-data" }, "169.254.169.254"},
		{"authorization server at the metadata address", func(a *connectorstest.OAuthServer) { a.AuthServerInPRM = "http://169.254.169.254" }, "169.254.169.254"},
	}
	for _, pg := range dialects(t) {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/postgres=%v", tc.name, pg), func(t *testing.T) {
				a := connectorstest.NewOAuthServer(t)
				a.Set(tc.setup)
				n := newOAuthNode(t, pg, a.RS.URL+"/mcp")
				code, b := n.connect("agent", connectorstest.Agent.String())
				if code != 422 || !strings.Contains(fmt.Sprint(b), tc.want) {
					t.Fatalf("connect: %d %v", code, b)
				}
				t.Logf("refused: %v", b["message"])
				if a.Count(func(a *connectorstest.OAuthServer) int { return a.Registrations }) != 0 {
					t.Fatal("a client was registered")
				}
				if code, _, b := n.c.do("GET", "/api/mcp/connections", nil, false); code != 200 || len(b["connections"].([]any)) != 0 {
					t.Fatalf("a refused connect left a login: %v", b)
				}
			})
		}
	}
}
