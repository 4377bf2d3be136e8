package connectorshttp_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/github"
	"github.com/workbench/workbench/plugins/shipped"
)

// platformKeys is the test's stand-in of the platform key store (Admin, Platform keys).
type platformKeys struct {
	mu   sync.Mutex
	keys map[string]map[string]string
}

func (p *platformKeys) PlatformKey(_ context.Context, name string) (map[string]string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.keys[name]
	return f, ok, nil
}

func (p *platformKeys) set(name string, fields map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys == nil {
		p.keys = map[string]map[string]string{}
	}
	p.keys[name] = fields
}

// integrations is an integration lookup over a fixed set.
type integrations map[string]*plugins.Integration

func (in integrations) Integration(name string) (*plugins.Integration, bool) {
	i, ok := in[name]
	return i, ok
}

// clientAuth is how the fake's last token request authenticated its client.
func clientAuth(a *connectorstest.OAuthServer) string {
	var s string
	a.Set(func(a *connectorstest.OAuthServer) { s = a.ClientAuth })
	return s
}

// noRedirects is the operator's browser: it follows no redirect, so each hop is checked.
func noRedirects() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// newNode is a Workbench node with the connector folders files (beside the "remote" one), its
// service's options changed by configure, behind the real routes on a portal session.
func newNode(t *testing.T, pg bool, files map[string]string, configure func(*connectors.Options), resolver *connectorstest.Resolver) *oauthNode {
	t.Helper()
	o := connectorstest.Options{Postgres: pg, Configure: configure}
	if resolver != nil {
		o.Resolver = resolver
	}
	return newNodeWith(t, o, files)
}

// newNodeWith is newNode on the node options o (adapters, a resolver, ...).
func newNodeWith(t *testing.T, o connectorstest.Options, files map[string]string) *oauthNode {
	t.Helper()
	o.FS = connectorstest.ManifestFS("https://unused.example/mcp", files)
	env := connectorstest.Open(t, o)
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	cookie, err := sessions.Cookie(connectorstest.User)
	if err != nil {
		t.Fatal(err)
	}
	return &oauthNode{env: env, c: client{t: t, base: srv.URL, cookie: cookie}, browser: noRedirects()}
}

func (n *oauthNode) connectTo(server, owner, id string) (int, map[string]any) {
	code, _, b := n.c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": server, "owner_scope": owner, "owner_id": id}, true)
	return code, b
}

func (n *oauthNode) status(t *testing.T, id string) string {
	t.Helper()
	_, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false)
	s, _ := d["status"].(string)
	return s
}

func (n *oauthNode) call(id, tool string) (int, map[string]any) {
	code, _, b := n.c.do("POST", "/api/mcp/connections/"+id+"/call", map[string]any{"tool": tool, "arguments": map[string]any{"text": "hi"}}, true)
	return code, b
}

// notSetUp checks a connect answered 422 with setup_state not_set_up and left no login.
func notSetUp(t *testing.T, n *oauthNode, server, want string) {
	t.Helper()
	code, b := n.connectTo(server, "agent", connectorstest.Agent.String())
	if code != 422 || b["setup_state"] != "not_set_up" || !strings.Contains(fmt.Sprint(b["message"]), want) {
		t.Fatalf("connect without a client: %d %v", code, b)
	}
	if _, _, l := n.c.do("GET", "/api/mcp/connections", nil, false); len(l["connections"].([]any)) != 0 {
		t.Fatalf("a refused connect left a login: %v", l)
	}
}

// The configured strategy with a provider: the integration's endpoints, scopes and parameters, its
// client from the platform key integration:<slug> (the secret read again at the callback and at every
// refresh, sent in the body as the integration says), no resource parameter, PKCE checked by the
// fake; a 401 then one refresh and one retry; invalid_grant disconnects.
func TestOAuthConfiguredProvider(t *testing.T) {
	for _, pg := range dialects(t) {
		t.Run(fmt.Sprintf("postgres=%v", pg), func(t *testing.T) {
			a := connectorstest.NewOAuthServer(t)
			a.Set(func(a *connectorstest.OAuthServer) { a.NoResource, a.NoRegistration = true, true })
			keys := &platformKeys{}
			ints := integrations{"acme-mail": {Manifest: plugins.Manifest{Name: "acme-mail", DisplayName: "Acme Mail", Auth: plugins.Auth{Mode: plugins.AuthOAuth2,
				OAuth2: &plugins.OAuth2{AuthorizeURL: a.AS.URL + "/authorize", TokenURL: a.AS.URL + "/token", Scopes: []string{"mail.read"},
					AuthorizeParams: map[string]string{"access_type": "offline"}, TokenAuthStyle: plugins.TokenAuthBody}}}}}
			n := newNode(t, pg, map[string]string{"mailbox/connector.json": fmt.Sprintf(`{"slug":"mailbox","display_name":"Mailbox","endpoint":{"url":%q},
				"auth":{"kind":"oauth","oauth":{"strategy":"configured","provider":"acme-mail","scopes":["mail.read","mail.send"]}}}`, a.Resource)},
				func(o *connectors.Options) { o.PlatformKeys, o.Integrations = keys, ints }, nil)
			notSetUp(t, n, "mcp_mailbox", "integration:acme-mail")

			cid, secret := a.AddClient(n.c.base + connectors.CallbackPath)
			keys.set("integration:acme-mail", map[string]string{"client_id": cid, "client_secret": secret})
			code, b := n.connectTo("mcp_mailbox", "agent", connectorstest.Agent.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			au, _ := url.Parse(b["authorization_url"].(string))
			q := au.Query()
			if b["authorization_host"] != au.Host || au.Host != strings.TrimPrefix(a.AS.URL, "http://") || au.Path != "/authorize" || q.Get("client_id") != cid ||
				q.Get("scope") != "mail.read mail.send" || q.Get("access_type") != "offline" || q.Has("resource") || q.Get("prompt") != "consent" || strings.Contains(au.String(), secret) {
				t.Fatalf("connect answered %v", b)
			}
			id := b["connection"].(map[string]any)["id"].(string)
			if back := n.signIn(t, au.String()); back.Query().Get("oauth") != "connected" {
				t.Fatalf("callback sent the browser to %s", back)
			}
			if clientAuth(a) != "post" {
				t.Fatalf("the code was redeemed with client authentication %q, want post", clientAuth(a))
			}
			if code, b := n.call(id, "mailbox_echo"); code != 200 || !strings.Contains(fmt.Sprint(b), "echo: hi") {
				t.Fatalf("call: %d %v", code, b)
			}
			a.RevokeAccess()
			if code, b := n.call(id, "mailbox_echo"); code != 200 || a.Count(func(a *connectorstest.OAuthServer) int { return a.Refreshes }) != 1 {
				t.Fatalf("call after a 401: %d %v, %d refreshes", code, b, a.Refreshes)
			}
			a.RevokeAll()
			if code, b := n.call(id, "mailbox_echo"); code != 422 || !strings.Contains(fmt.Sprint(b), "sign in again") {
				t.Fatalf("call after invalid_grant: %d %v", code, b)
			}
			if s := n.status(t, id); s != "disconnected" {
				t.Fatalf("after invalid_grant: %s", s)
			}
			if len(n.env.Events(t, "connector.oauth_client_registered")) != 0 {
				t.Fatal("a configured connector registered a client")
			}
		})
	}
}

// With no platform key, the <PLUGIN>_CLIENT_ID client the server started with signs in (HTTP Basic,
// the integration's default); a platform key set later takes over without a restart.
func TestOAuthConfiguredProviderEnvClient(t *testing.T) {
	a := connectorstest.NewOAuthServer(t)
	a.Set(func(a *connectorstest.OAuthServer) { a.NoResource = true })
	keys := &platformKeys{}
	ints := integrations{"acme-mail": {Manifest: plugins.Manifest{Name: "acme-mail", DisplayName: "Acme Mail", Auth: plugins.Auth{Mode: plugins.AuthOAuth2,
		OAuth2: &plugins.OAuth2{AuthorizeURL: a.AS.URL + "/authorize", TokenURL: a.AS.URL + "/token", Scopes: []string{"mail.read"}}}}}}
	env := map[string]config.OAuthClient{}
	n := newNode(t, false, map[string]string{"mailbox/connector.json": fmt.Sprintf(`{"slug":"mailbox","display_name":"Mailbox","endpoint":{"url":%q},
		"auth":{"kind":"oauth","oauth":{"strategy":"configured","provider":"acme-mail"}}}`, a.Resource)},
		func(o *connectors.Options) { o.PlatformKeys, o.Integrations, o.IntegrationClients = keys, ints, env }, nil)
	cid, secret := a.AddClient(n.c.base + connectors.CallbackPath)
	env["acme-mail"] = config.OAuthClient{ID: cid, Secret: secret}
	code, b := n.connectTo("mcp_mailbox", "agent", connectorstest.Agent.String())
	if code != 201 {
		t.Fatalf("connect: %d %v", code, b)
	}
	au, _ := url.Parse(b["authorization_url"].(string))
	if au.Query().Get("client_id") != cid || au.Query().Get("scope") != "mail.read" {
		t.Fatalf("connect answered %v", b)
	}
	if back := n.signIn(t, au.String()); back.Query().Get("oauth") != "connected" || clientAuth(a) != "basic" {
		t.Fatalf("callback: %s, client authentication %q", back, clientAuth(a))
	}
	// A platform key for another client now takes over: a new sign-in uses it.
	keys.set("integration:acme-mail", map[string]string{"client_id": "from-the-key", "client_secret": "s"})
	code, b = n.connectTo("mcp_mailbox", "guild", connectorstest.Guild.String())
	if au, _ := url.Parse(fmt.Sprint(b["authorization_url"])); code != 201 || au.Query().Get("client_id") != "from-the-key" {
		t.Fatalf("connect with a platform key: %d %v", code, b)
	}
}

// A shipped integration (the real registry's google-gmail) gives its endpoints, scopes and parameters;
// the host names resolve through the test's resolver, never the system's.
func TestOAuthConfiguredProviderRegistry(t *testing.T) {
	reg, problems := plugins.Load(context.Background(), plugins.Options{Builtins: shipped.Plugins()})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	keys := &platformKeys{}
	keys.set("integration:google-gmail", map[string]string{"client_id": "123.apps.googleusercontent.com", "client_secret": "GOCSPX-test"})
	public := netip.MustParseAddr("142.250.1.1")
	res := &connectorstest.Resolver{Answers: map[string][]netip.Addr{"accounts.google.com": {public}, "oauth2.googleapis.com": {public},
		"gmailmcp.googleapis.com": {public}}}
	n := newNode(t, false, map[string]string{"gmail/connector.json": `{"slug":"gmail","display_name":"Gmail","endpoint":{"url":"https://gmailmcp.googleapis.com/mcp/v1"},
		"auth":{"kind":"oauth","oauth":{"strategy":"configured","provider":"google-gmail"}}}`},
		func(o *connectors.Options) { o.PlatformKeys, o.Integrations = keys, reg }, res)
	code, b := n.connectTo("mcp_gmail", "agent", connectorstest.Agent.String())
	if code != 201 {
		t.Fatalf("connect: %d %v", code, b)
	}
	au, _ := url.Parse(b["authorization_url"].(string))
	q := au.Query()
	if b["authorization_host"] != "accounts.google.com" || au.Path != "/o/oauth2/v2/auth" || q.Get("client_id") != "123.apps.googleusercontent.com" ||
		q.Get("scope") != "https://www.googleapis.com/auth/gmail.modify" || q.Get("access_type") != "offline" || q.Get("code_challenge_method") != "S256" ||
		q.Get("prompt") != "consent" || q.Get("redirect_uri") != n.c.base+connectors.CallbackPath {
		t.Fatalf("connect answered %v", b)
	}
}

// The configured strategy without a provider: the connector's own platform key connector:<slug>,
// the endpoints discovered (with the resource and issuer checks) and nothing registered, even where
// the server offers registration; the client authenticates with HTTP Basic, its id and secret
// form-encoded.
func TestOAuthConfiguredConnectorKey(t *testing.T) {
	for _, pg := range dialects(t) {
		t.Run(fmt.Sprintf("postgres=%v", pg), func(t *testing.T) {
			a := connectorstest.NewOAuthServer(t)
			a.Set(func(a *connectorstest.OAuthServer) {
				a.AuthMethods = []string{"client_secret_basic", "client_secret_post"}
			})
			keys := &platformKeys{}
			n := newNode(t, pg, map[string]string{"hosted/connector.json": fmt.Sprintf(`{"slug":"hosted","display_name":"Hosted","endpoint":{"url":%q},
				"auth":{"kind":"oauth","oauth":{"strategy":"configured"}}}`, a.Resource)},
				func(o *connectors.Options) { o.PlatformKeys = keys }, nil)
			notSetUp(t, n, "mcp_hosted", "connector:hosted")

			cid, secret := a.AddClient(n.c.base + connectors.CallbackPath)
			keys.set("connector:hosted", map[string]string{"client_id": cid, "client_secret": secret})
			code, b := n.connectTo("mcp_hosted", "agent", connectorstest.Agent.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			au, _ := url.Parse(b["authorization_url"].(string))
			if au.Query().Get("client_id") != cid || au.Query().Get("resource") != a.Resource {
				t.Fatalf("connect answered %v", b)
			}
			id := b["connection"].(map[string]any)["id"].(string)
			if back := n.signIn(t, au.String()); back.Query().Get("oauth") != "connected" || clientAuth(a) != "basic" {
				t.Fatalf("callback: %s, client authentication %q", back, clientAuth(a))
			}
			a.RevokeAccess()
			if code, b := n.call(id, "hosted_echo"); code != 200 || a.Count(func(a *connectorstest.OAuthServer) int { return a.Refreshes }) != 1 || clientAuth(a) != "basic" {
				t.Fatalf("call after a 401: %d %v, %d refreshes", code, b, a.Refreshes)
			}
			if a.Count(func(a *connectorstest.OAuthServer) int { return a.Registrations }) != 0 {
				t.Fatal("a configured connector registered a client")
			}
			// The key now names another client: the login's refresh token is the old client's, so
			// the login is disconnected rather than refreshed with a client that cannot redeem it.
			keys.set("connector:hosted", map[string]string{"client_id": "another", "client_secret": "x"})
			n.env.Advance(3590 * time.Second)
			if code, b := n.call(id, "hosted_echo"); code != 422 || !strings.Contains(fmt.Sprint(b), "client changed") {
				t.Fatalf("call with a changed client: %d %v", code, b)
			}
			if s := n.status(t, id); s != "disconnected" {
				t.Fatalf("after the client changed: %s", s)
			}
		})
	}
	t.Run("an issuer mismatch is refused", func(t *testing.T) {
		a := connectorstest.NewOAuthServer(t)
		a.Set(func(a *connectorstest.OAuthServer) { a.Issuer = "http://127.0.0.1:1/other" })
		keys := &platformKeys{}
		keys.set("connector:hosted", map[string]string{"client_id": "c", "client_secret": "s"})
		n := newNode(t, false, map[string]string{"hosted/connector.json": fmt.Sprintf(`{"slug":"hosted","display_name":"Hosted","endpoint":{"url":%q},
			"auth":{"kind":"oauth","oauth":{"strategy":"configured"}}}`, a.Resource)}, func(o *connectors.Options) { o.PlatformKeys = keys }, nil)
		if code, b := n.connectTo("mcp_hosted", "agent", connectorstest.Agent.String()); code != 422 || !strings.Contains(fmt.Sprint(b), "issuer") {
			t.Fatalf("connect: %d %v", code, b)
		}
	})
}

// The github_app strategy end to end against the GitHub fake: the installation page, the callback
// with installation_id and code (the installation checked against the user's), the account hint, an
// installation token per hour cached and renewed before it expires, a 401 then a new token and one
// retry, the token redacted from results, a removed installation disconnecting the login; a forged
// installation id and an installation without user authorization are refused.
func TestOAuthGitHubApp(t *testing.T) {
	for _, pg := range dialects(t) {
		t.Run(fmt.Sprintf("postgres=%v", pg), func(t *testing.T) {
			remote := connectorstest.NewRemote(t, "not-an-installation-token")
			keys := &platformKeys{}
			var n *oauthNode
			gh := connectorstest.NewGitHub(t, func() time.Time { return n.env.Now() }, remote)
			n = newNode(t, pg, map[string]string{"gh/connector.json": fmt.Sprintf(`{"slug":"gh","display_name":"GitHub","endpoint":{"url":%q},
				"auth":{"kind":"oauth","oauth":{"strategy":"github_app"}}}`, remote.URL())},
				func(o *connectors.Options) {
					o.PlatformKeys, o.GitHubURL, o.GitHubAPIURL = keys, gh.Web.URL, gh.API.URL
				}, nil)
			gh.Set(func(g *connectorstest.GitHub) { g.Callback = n.c.base + connectors.CallbackPath })
			notSetUp(t, n, "mcp_gh", "github_app")
			partial := gh.Key()
			delete(partial, "private_key")
			keys.set("github_app", partial)
			notSetUp(t, n, "mcp_gh", "private_key")
			keys.set("github_app", gh.Key())

			code, b := n.connectTo("mcp_gh", "agent", connectorstest.Agent.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			au, _ := url.Parse(b["authorization_url"].(string))
			if au.Path != "/apps/workbench-test/installations/new" || au.Query().Get("state") == "" || b["authorization_host"] != au.Host ||
				au.Host != strings.TrimPrefix(gh.Web.URL, "http://") {
				t.Fatalf("connect answered %v", b)
			}
			id := b["connection"].(map[string]any)["id"].(string)
			if back := n.signIn(t, au.String()); back.Query().Get("oauth") != "connected" || back.Query().Get("connection") != id {
				t.Fatalf("callback sent the browser to %s", back)
			}
			code, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false)
			tools, _ := d["tools"].([]any)
			if code != 200 || d["status"] != "connected" || d["account_hint"] != "octo-org-40000001" || len(tools) != 4 {
				t.Fatalf("after the installation: %d %v", code, d)
			}
			issued := func() int { return gh.Count(func(g *connectorstest.GitHub) int { return g.TokensIssued }) }
			if issued() != 1 {
				t.Fatalf("%d installation tokens for the first listing", issued())
			}
			// The token is cached, and redacted from what the tool answers.
			code, b = n.call(id, "gh_whoami")
			if code != 200 || !strings.Contains(fmt.Sprint(b), "token is [REDACTED]") || strings.Contains(fmt.Sprint(b), "ghs_") || issued() != 1 {
				t.Fatalf("whoami: %d %v, %d tokens", code, b, issued())
			}
			// A token within a minute of its expiry is renewed before the call, once for calls made
			// together, with no 401.
			n.env.Advance(59*time.Minute + 30*time.Second)
			var wg sync.WaitGroup
			codes := make([]int, 6)
			for i := range codes {
				wg.Add(1)
				go func() { defer wg.Done(); codes[i], _ = n.call(id, "gh_echo") }()
			}
			wg.Wait()
			if issued() != 2 || fmt.Sprint(codes) != "[200 200 200 200 200 200]" {
				t.Fatalf("calls near expiry: %v, %d tokens", codes, issued())
			}
			// A 401 gets one new token and one retry.
			gh.RevokeTokens()
			if code, b := n.call(id, "gh_echo"); code != 200 || !strings.Contains(fmt.Sprint(b), "echo: hi") || issued() != 3 {
				t.Fatalf("call after a 401: %d %v, %d tokens", code, b, issued())
			}
			// The installation removed: the next token request is a 404 and the login disconnects.
			gh.Uninstall(40000001)
			if code, b := n.call(id, "gh_echo"); code != 422 || !strings.Contains(fmt.Sprint(b), "installation was removed") {
				t.Fatalf("call after the installation was removed: %d %v", code, b)
			}
			if s := n.status(t, id); s != "disconnected" {
				t.Fatalf("after the installation was removed: %s", s)
			}

			// A forged installation id (another account's installation) is refused, and the new
			// login is gone; so is an installation sent back without user authorization.
			gh.Set(func(g *connectorstest.GitHub) { g.Installations[7] = "victim-org"; g.Forge = 7 })
			code, b = n.connectTo("mcp_gh", "guild", connectorstest.Guild.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			guildID := b["connection"].(map[string]any)["id"].(string)
			if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "failed" || !strings.Contains(back.Query().Get("message"), "not one your GitHub account can reach") {
				t.Fatalf("a forged installation: %s", back)
			}
			if code, _, _ := n.c.do("GET", "/api/mcp/connections/"+guildID, nil, false); code != 404 {
				t.Fatalf("a refused installation left its login: %d", code)
			}
			gh.Set(func(g *connectorstest.GitHub) { g.Forge, g.NoCode = 0, true })
			code, b = n.connectTo("mcp_gh", "guild", connectorstest.Guild.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "failed" || !strings.Contains(back.Query().Get("message"), "user authorization") {
				t.Fatalf("an installation without user authorization: %s", back)
			}
			// A user who may only request the installation: it awaits an owner's approval.
			gh.Set(func(g *connectorstest.GitHub) { g.NoCode, g.Request = false, true })
			code, b = n.connectTo("mcp_gh", "guild", connectorstest.Guild.String())
			if code != 201 {
				t.Fatalf("connect: %d %v", code, b)
			}
			if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "failed" || !strings.Contains(back.Query().Get("message"), "approve") {
				t.Fatalf("an installation request: %s", back)
			}
			if code, _, _ := n.c.do("GET", "/api/mcp/connections/"+b["connection"].(map[string]any)["id"].(string), nil, false); code != 404 {
				t.Fatalf("a refused installation request left its login: %d", code)
			}
		})
	}
}

// The shipped github connector (plugins/github/connectors/github: adapter only, github_app) against the
// GitHub fake: installed, its manifest's tools listed, and its adapter calling the REST API with the
// installation token, a 401 renewing it once.
func TestOAuthGitHubAppShippedConnector(t *testing.T) {
	manifest, err := os.ReadFile("../../plugins/github/connectors/github/connector.json")
	if err != nil {
		t.Fatal(err)
	}
	keys := &platformKeys{}
	var n *oauthNode
	gh := connectorstest.NewGitHub(t, func() time.Time { return n.env.Now() }, connectorstest.NewRemote(t, "unused"))
	keys.set("github_app", gh.Key())
	n = newNodeWith(t, connectorstest.Options{Adapters: map[string]connector.Adapter{"github": github.New(gh.API.URL)},
		Configure: func(o *connectors.Options) {
			o.PlatformKeys, o.GitHubURL, o.GitHubAPIURL = keys, gh.Web.URL, gh.API.URL
		}},
		map[string]string{"github/connector.json": string(manifest)})
	gh.Set(func(g *connectorstest.GitHub) { g.Callback = n.c.base + connectors.CallbackPath })
	code, b := n.connectTo("mcp_github", "organization", connectorstest.Org.String())
	if code != 201 {
		t.Fatalf("connect: %d %v", code, b)
	}
	id := b["connection"].(map[string]any)["id"].(string)
	if back := n.signIn(t, b["authorization_url"].(string)); back.Query().Get("oauth") != "connected" {
		t.Fatalf("callback sent the browser to %s", back)
	}
	_, _, d := n.c.do("GET", "/api/mcp/connections/"+id, nil, false)
	if tools, _ := d["tools"].([]any); d["status"] != "connected" || len(tools) != 3 || d["account_hint"] != "octo-org-40000001" {
		t.Fatalf("after the installation: %v", d)
	}
	call := func(tool string, args map[string]any) (int, map[string]any) {
		code, _, b := n.c.do("POST", "/api/mcp/connections/"+id+"/call", map[string]any{"tool": tool, "arguments": args}, true)
		return code, b
	}
	if code, b := call("list_repositories", map[string]any{}); code != 200 || !strings.Contains(fmt.Sprint(b), "octo-org-40000001/demo") {
		t.Fatalf("list_repositories: %d %v", code, b)
	}
	gh.RevokeTokens()
	if code, b := call("list_issues", map[string]any{"repository": "octo-org-40000001/demo"}); code != 200 || !strings.Contains(fmt.Sprint(b), "First") ||
		gh.Count(func(g *connectorstest.GitHub) int { return g.TokensIssued }) != 2 {
		t.Fatalf("list_issues after a 401: %d %v", code, b)
	}
	if code, b := call("create_issue", map[string]any{"repository": "octo-org-40000001/demo", "title": "From the agent"}); code != 200 || !strings.Contains(fmt.Sprint(b), "issues/2") {
		t.Fatalf("create_issue: %d %v", code, b)
	}
	if got := gh.Count(func(g *connectorstest.GitHub) int { return len(g.Created) }); got != 1 {
		t.Fatalf("%d issues created", got)
	}
}

// GitHub's bases pass the address check at connect: a metadata address is refused even with
// loopback allowed, and no login is left.
func TestOAuthGitHubAppAddressCheck(t *testing.T) {
	for _, tc := range []struct{ name, web, api string }{
		{"web", "http://169.254.169.254", ""},
		{"api", "", "http://169.254.169.254/api"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := &platformKeys{}
			var n *oauthNode
			gh := connectorstest.NewGitHub(t, func() time.Time { return n.env.Now() }, connectorstest.NewRemote(t, "unused"))
			keys.set("github_app", gh.Key())
			web, api := gh.Web.URL, gh.API.URL
			if tc.web != "" {
				web = tc.web
			}
			if tc.api != "" {
				api = tc.api
			}
			n = newNode(t, false, map[string]string{"gh/connector.json": fmt.Sprintf(`{"slug":"gh","display_name":"GitHub","endpoint":{"url":%q},
				"auth":{"kind":"oauth","oauth":{"strategy":"github_app"}}}`, gh.Remote.URL())},
				func(o *connectors.Options) { o.PlatformKeys, o.GitHubURL, o.GitHubAPIURL = keys, web, api }, nil)
			code, b := n.connectTo("mcp_gh", "agent", connectorstest.Agent.String())
			if code != 422 || !strings.Contains(fmt.Sprint(b), "169.254.169.254") {
				t.Fatalf("connect: %d %v", code, b)
			}
			if _, _, l := n.c.do("GET", "/api/mcp/connections?agent_id="+connectorstest.Agent.String(), nil, false); len(l["connections"].([]any)) != 0 {
				t.Fatalf("a refused connect left a login: %v", l)
			}
		})
	}
}
