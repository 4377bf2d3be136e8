package connectors_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectors"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testpg"
)

// authServer is an OAuth 2.1 authorization server written for these tests: RFC 8414 metadata,
// RFC 7591 registration of public clients, the authorization endpoint with PKCE S256, and the token
// endpoint (authorization_code and refresh_token, refresh tokens rotated). It checks every request as
// the RFCs say and fails the test on a request that breaks them. The resource server beside it is an
// MCP server (the official Go SDK's) accepting the access tokens it issued, with RFC 9728 metadata.
type authServer struct {
	t  *testing.T
	AS *httptest.Server
	RS *httptest.Server

	mu sync.Mutex
	// What the metadata documents say (a test changes them to lie).
	Issuer, Resource, ResourceMetadataURL, AuthServerInPRM string
	NoRegistration, Deny                                   bool
	clients                                                map[string][]string // client_id → redirect URIs
	codes                                                  map[string]grant
	access                                                 map[string]bool
	refresh                                                map[string]string // refresh token → client_id
	Registrations, Refreshes, Unauthorized                 int
}

type grant struct {
	client, redirect, challenge, resource string
}

func (a *authServer) errorf(format string, args ...any) {
	a.t.Errorf("authorization server: "+format, args...)
}

func newAuthServer(t *testing.T) *authServer {
	a := &authServer{t: t, clients: map[string][]string{}, codes: map[string]grant{}, access: map[string]bool{}, refresh: map[string]string{}}
	a.AS = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.AS.Close)
	srv := mcp.NewServer(&mcp.Implementation{Name: "oauth-remote", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in connectorstest.EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	a.RS = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			a.mu.Lock()
			doc := map[string]any{"resource": a.Resource, "authorization_servers": []string{a.AuthServerInPRM}, "bearer_methods_supported": []string{"header"}}
			a.mu.Unlock()
			writeJSON(w, 200, doc)
			return
		}
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		valid := ok && a.access[tok]
		if !valid {
			a.Unauthorized++
		}
		md := a.ResourceMetadataURL
		a.mu.Unlock()
		if !valid {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, md))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.RS.Close)
	a.Issuer, a.AuthServerInPRM = a.AS.URL, a.AS.URL
	a.Resource = a.RS.URL + "/mcp"
	a.ResourceMetadataURL = a.RS.URL + "/.well-known/oauth-protected-resource/mcp"
	return a
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = io.ReadFull(randReader{}, b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (a *authServer) serveAS(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		doc := map[string]any{"issuer": a.Issuer, "authorization_endpoint": a.AS.URL + "/authorize", "token_endpoint": a.AS.URL + "/token",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"}}
		if !a.NoRegistration {
			doc["registration_endpoint"] = a.AS.URL + "/register"
		}
		writeJSON(w, 200, doc)
	case "/register": // RFC 7591 section 3.1
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		var md struct {
			RedirectURIs  []string `json:"redirect_uris"`
			AuthMethod    string   `json:"token_endpoint_auth_method"`
			GrantTypes    []string `json:"grant_types"`
			ResponseTypes []string `json:"response_types"`
		}
		if r.Method != http.MethodPost || mt != "application/json" || json.NewDecoder(r.Body).Decode(&md) != nil || len(md.RedirectURIs) == 0 || md.AuthMethod != "none" {
			a.errorf("registration request breaks RFC 7591: %s %s %+v", r.Method, mt, md)
			writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		for _, u := range md.RedirectURIs {
			if p, err := url.Parse(u); err != nil || !p.IsAbs() || p.Fragment != "" {
				writeJSON(w, 400, map[string]string{"error": "invalid_redirect_uri"})
				return
			}
		}
		id := "client-" + random(9)
		a.clients[id] = md.RedirectURIs
		a.Registrations++
		writeJSON(w, 201, map[string]any{"client_id": id, "client_id_issued_at": time.Now().Unix(), "redirect_uris": md.RedirectURIs,
			"token_endpoint_auth_method": "none", "grant_types": md.GrantTypes, "response_types": md.ResponseTypes})
	case "/authorize": // RFC 6749 section 4.1.1, RFC 7636 section 4.3, RFC 8707
		q := r.URL.Query()
		redirects, known := a.clients[q.Get("client_id")]
		redirect := q.Get("redirect_uri")
		if !known || !contains(redirects, redirect) {
			a.errorf("authorize: unknown client or redirect %q", redirect)
			http.Error(w, "bad client", 400)
			return
		}
		if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("state") == "" ||
			q.Get("prompt") != "consent" || q.Get("resource") != a.RS.URL+"/mcp" {
			a.errorf("authorize request breaks the profile: %v", q)
			http.Error(w, "bad request", 400)
			return
		}
		back, _ := url.Parse(redirect)
		bq := url.Values{"state": {q.Get("state")}}
		if a.Deny {
			bq.Set("error", "access_denied")
		} else {
			code := random(18)
			a.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
			bq.Set("code", code)
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case "/token": // RFC 6749 sections 4.1.3 and 6, RFC 7636 section 4.5
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
			a.errorf("token request is not a form post")
			writeJSON(w, 400, map[string]string{"error": "invalid_request"})
			return
		}
		f := r.PostForm
		switch f.Get("grant_type") {
		case "authorization_code":
			g, ok := a.codes[f.Get("code")]
			delete(a.codes, f.Get("code"))
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if !ok || g.client != f.Get("client_id") || g.redirect != f.Get("redirect_uri") || g.resource != f.Get("resource") {
				a.errorf("token: the code's client, redirect or resource differ")
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
				a.errorf("token: the PKCE verifier does not match the challenge")
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			a.issue(w, g.client)
		case "refresh_token":
			client, ok := a.refresh[f.Get("refresh_token")]
			if !ok || client != f.Get("client_id") {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.refresh, f.Get("refresh_token"))
			a.Refreshes++
			a.issue(w, client)
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		}
	default:
		http.NotFound(w, r)
	}
}

func (a *authServer) issue(w http.ResponseWriter, client string) {
	at, rt := "at-"+random(18), "rt-"+random(18)
	a.access[at], a.refresh[rt] = true, client
	writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
}

// RevokeAccess forgets every access token (the next call is a 401); RevokeAll forgets the refresh
// tokens too (the next refresh is invalid_grant).
func (a *authServer) RevokeAccess() { a.mu.Lock(); a.access = map[string]bool{}; a.mu.Unlock() }
func (a *authServer) RevokeAll() {
	a.mu.Lock()
	a.access, a.refresh = map[string]bool{}, map[string]string{}
	a.mu.Unlock()
}

func (a *authServer) set(f func(a *authServer)) { a.mu.Lock(); f(a); a.mu.Unlock() }

func (a *authServer) count(f func(a *authServer) int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return f(a)
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

type randReader struct{}

func (randReader) Read(b []byte) (int, error) { return cryptoRand(b) }

// oauthNode is a Workbench node with one dynamic OAuth connector on the test's resource server,
// behind the real routes on a portal session.
type oauthNode struct {
	env     *connectorstest.Env
	c       client
	browser *http.Client // the operator's browser: follows no redirect, so each hop is checked
}

func dialects(t *testing.T) []bool {
	pg := []bool{false}
	if os.Getenv(testpg.EnvVar) != "" || os.Getenv("CI") == "true" {
		pg = append(pg, true)
	}
	return pg
}

func newOAuthNode(t *testing.T, pg bool, endpoint string) *oauthNode {
	t.Helper()
	fsys := connectorstest.ManifestFS("https://unused.example/mcp", map[string]string{
		"hosted/connector.json": fmt.Sprintf(`{"slug":"hosted","display_name":"Hosted","description":"An OAuth MCP server in the tests.","endpoint":{"url":%q},"auth":{"kind":"oauth","oauth":{"strategy":"dynamic"}}}`, endpoint),
	})
	env := connectorstest.Open(t, connectorstest.Options{Postgres: pg, FS: fsys})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectors.Mount(r, connectors.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	cookie, err := sessions.Cookie(connectorstest.User)
	if err != nil {
		t.Fatal(err)
	}
	return &oauthNode{env: env, c: client{t: t, base: srv.URL, cookie: cookie},
		browser: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
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
			a := newAuthServer(t)
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
			if code != 201 || a.count(func(a *authServer) int { return a.Registrations }) != 1 || len(n.env.Events(t, "connector.oauth_client_registered")) != 1 {
				t.Fatalf("second connect: %d %v, %d registrations", code, b, a.Registrations)
			}
			guildURL := b["authorization_url"].(string)
			guildID := b["connection"].(map[string]any)["id"].(string)

			// A 401 gets one refresh and one retry.
			a.RevokeAccess()
			if code, b := call(); code != 200 || !strings.Contains(fmt.Sprint(b), "echo: hi") || a.count(func(a *authServer) int { return a.Refreshes }) != 1 {
				t.Fatalf("call after a 401: %d %v, %d refreshes", code, b, a.Refreshes)
			}
			// A token about to expire is refreshed before the call, once for calls made together
			// (the refresh token rotates: a second refresh with the old one would be invalid_grant),
			// and no 401 reaches a call.
			before := a.count(func(a *authServer) int { return a.Unauthorized })
			n.env.Advance(3590 * time.Second)
			var wg sync.WaitGroup
			codes := make([]int, 6)
			for i := range codes {
				wg.Add(1)
				go func() { defer wg.Done(); codes[i], _ = call() }()
			}
			wg.Wait()
			if a.count(func(a *authServer) int { return a.Refreshes }) != 2 || a.count(func(a *authServer) int { return a.Unauthorized }) != before {
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
			// A retry over the disconnected login, denied: it stays disconnected.
			code, b = n.connect("agent", agent)
			if code != 201 || b["connection"].(map[string]any)["id"] != id {
				t.Fatalf("retry: %d %v", code, b)
			}
			a.set(func(a *authServer) { a.Deny = true })
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
			if code != 201 || b["connection"].(map[string]any)["id"] != guildID {
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
		setup func(a *authServer)
		want  string
	}{
		{"issuer mismatch", func(a *authServer) { a.Issuer = "http://127.0.0.1:1/other" }, "issuer"},
		{"resource mismatch", func(a *authServer) { a.Resource = "http://127.0.0.1:1/mcp" }, "resource"},
		{"no registration", func(a *authServer) { a.NoRegistration = true }, "setup_state:unsupported"},
		{"metadata URL at the metadata address", func(a *authServer) { a.ResourceMetadataURL = "http://169.254.169.254/latest/meta-data" }, "169.254.169.254"},
		{"authorization server at the metadata address", func(a *authServer) { a.AuthServerInPRM = "http://169.254.169.254" }, "169.254.169.254"},
	}
	for _, pg := range dialects(t) {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/postgres=%v", tc.name, pg), func(t *testing.T) {
				a := newAuthServer(t)
				a.set(tc.setup)
				n := newOAuthNode(t, pg, a.RS.URL+"/mcp")
				code, b := n.connect("agent", connectorstest.Agent.String())
				if code != 422 || !strings.Contains(fmt.Sprint(b), tc.want) {
					t.Fatalf("connect: %d %v", code, b)
				}
				t.Logf("refused: %v", b["message"])
				if a.count(func(a *authServer) int { return a.Registrations }) != 0 {
					t.Fatal("a client was registered")
				}
				if code, _, b := n.c.do("GET", "/api/mcp/connections", nil, false); code != 200 || len(b["connections"].([]any)) != 0 {
					t.Fatalf("a refused connect left a login: %v", b)
				}
			})
		}
	}
}
