package connections_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers/portalhttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/connectionsrm"
)

const (
	clientID     = "client-123"
	clientSecret = "s3cret/with:odd&chars"
)

// provider is the test environment's fake OAuth provider set up as acme's authorization server: one
// client (clientID) authenticating by authStyle ("basic", "body" or "public": client_id in the body,
// no secret anywhere), authorization requests carrying scope "read write" and prompt consent, and
// GET /resources answering resources to a live token (Atlassian's accessible-resources). The fields
// below are what the token endpoint does on top; set applies them.
type provider struct {
	*testenv.OAuthProvider
	srv       *httptest.Server
	authStyle string

	mu          sync.Mutex
	denyConsent bool
	noRefresh   bool   // the code exchange returns no refresh_token
	refreshMode string // "rotate" (default), "keep" (no new refresh token) or "invalid_grant"
	expiresIn   int    // 0: the answers carry no expires_in (GitHub OAuth apps)
	// refreshDelay is how long a refresh answer waits.
	refreshDelay time.Duration
	resources    string
	// slack makes grants look like Slack's oauth.v2.access: a bot token (token_type "bot") at the top
	// level and a user token in authed_user, each with its own refresh token; a refresh answers the
	// token of the refresh token's kind at the top level (token_type "bot" or "user").
	slack       bool
	slackKinds  map[string]string // refresh token → "bot" or "user"
	slackIssued int
	lastRefresh string // the refresh token last presented
}

func newProvider(t *testing.T, authStyle string) *provider {
	p := &provider{OAuthProvider: testenv.NewOAuthProvider(t), authStyle: authStyle, expiresIn: 3600, refreshMode: "rotate", slackKinds: map[string]string{}}
	p.srv = p.Server()
	p.set(func(*provider) {})
	return p
}

// register makes acme's client known with its one redirect URI.
func (p *provider) register(redirect string) {
	c := testenv.OAuthClient{ID: clientID, Secret: clientSecret, RedirectURIs: []string{redirect}}
	switch p.authStyle {
	case "basic":
		c.Auth = testenv.AuthBasic
	case "body":
		c.Auth = testenv.AuthPost
	default:
		c.Auth, c.Secret = testenv.AuthNone, ""
	}
	p.AddClient(c)
}

func (p *provider) set(f func(p *provider)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
	p.Set(func(s *testenv.OAuthSettings) {
		s.Expect = map[string]string{"scope": "read write", "prompt": "consent"}
		s.Deny, s.NoRefreshToken, s.KeepRefreshToken = p.denyConsent, p.noRefresh, p.refreshMode == "keep"
		s.ExpiresIn, s.RefreshedExpiresIn = p.expiresIn, 0
		s.API = map[string]string{"/resources": p.resources}
		s.Token = p.answer
	})
}

func (p *provider) exchanges() int64     { return int64(p.Exchanges()) }
func (p *provider) refreshes() int64     { return int64(p.Refreshes()) }
func (p *provider) resourceCalls() int64 { return int64(p.APICalls()) }

// answer shapes a token endpoint answer as the fields say.
func (p *provider) answer(r *testenv.TokenReply) {
	p.mu.Lock()
	mode, delay, slack := p.refreshMode, p.refreshDelay, p.slack
	rt := r.Form.Get("refresh_token")
	kind := p.slackKinds[rt]
	if r.Grant == "refresh_token" {
		p.lastRefresh = rt
	}
	p.mu.Unlock()
	if r.Grant == "refresh_token" {
		time.Sleep(delay)
		if mode == "invalid_grant" && r.Status == http.StatusOK {
			r.Status, r.Body = http.StatusBadRequest, map[string]any{"error": "invalid_grant"}
			return
		}
	}
	if r.Status != http.StatusOK || !slack {
		return
	}
	if r.Grant == "authorization_code" {
		r.Body = p.slackGrant()
	} else if kind != "" {
		r.Body = p.slackRefresh(kind)
	}
}

// slackToken makes a live token pair of Slack's shape for kind ("bot" or "user").
// Tokens of one grant share their number n.
func (p *provider) slackToken(kind string, n int) (access, refresh string) {
	p.mu.Lock()
	refresh = "xoxe-1-" + kind + "-" + uuid.NewString()
	p.slackKinds[refresh] = kind
	p.mu.Unlock()
	access = map[string]string{"bot": "xoxe.xoxb-", "user": "xoxe.xoxp-"}[kind] + strconv.Itoa(n)
	p.AddToken(testenv.IssuedToken{Access: access, Refresh: refresh, ClientID: clientID})
	return access, refresh
}

// slackGrant answers a code exchange the way Slack's oauth.v2.access does with token rotation on.
func (p *provider) slackGrant() map[string]any {
	p.mu.Lock()
	p.slackIssued++
	n, expires := p.slackIssued, p.expiresIn
	p.mu.Unlock()
	bot, botRT := p.slackToken("bot", n)
	user, userRT := p.slackToken("user", n)
	return map[string]any{"ok": true, "access_token": bot, "token_type": "bot", "scope": "chat:write,channels:read",
		"refresh_token": botRT, "expires_in": 43200, "bot_user_id": "U0KRQLJ9H", "app_id": "A0KRD7HC3",
		"team": map[string]any{"id": "T9TK3CUKW", "name": "Slack Softball Team"},
		"authed_user": map[string]any{"id": "U1234", "scope": "search:read", "access_token": user, "token_type": "user",
			"refresh_token": userRT, "expires_in": expires}}
}

// slackRefresh answers a refresh of one kind of Slack token: the new token at the top level.
func (p *provider) slackRefresh(kind string) map[string]any {
	p.mu.Lock()
	p.slackIssued++
	n := p.slackIssued
	p.mu.Unlock()
	at, rt := p.slackToken(kind, n)
	return map[string]any{"ok": true, "access_token": at, "token_type": kind, "refresh_token": rt, "expires_in": 43200}
}

// node is one replica: its database handle, event store, read-model runner, bus, relay, vault and
// credential Service, and its HTTP server with the portal API.
type node struct {
	t      *testing.T
	db     interface{ Close() error }
	store  eventstore.Store
	runner *projections.Runner
	svc    *connections.Service
	sess   *websession.Manager
	srv    *httptest.Server
	reader connectionsrm.Reader
}

type env struct {
	t        *testing.T
	ctx      context.Context
	dir      string
	provider *provider
	key      vault.MasterKey
	linkKey  []byte
	sessKey  []byte
	catalog  *plugins.Registry
	clients  map[string]config.OAuthClient
	bus      *bus.Bus
	opts     func(*connections.Config)
	// publicURL is SERVER_PUBLIC_URL, shared by every replica: the first node's server.
	publicURL string
	// redeemLimit is the claim-link redemptions a client address may attempt per minute (0: the
	// default).
	redeemLimit int
}

// newEnv writes the test plugins (acme: oauth2 against the fake provider; keyed: apikey; a cookie
// integration would need the live browser session, not built yet), loads them with the real registry,
// and prepares a database path.
func newEnv(t *testing.T, authStyle string) *env {
	t.Helper()
	return newEnvWith(t, authStyle, envOptions{})
}

// envOptions vary the test plugins.
type envOptions struct {
	// extra writes further plugin folders into the plugins directory before the registry loads.
	extra func(plugDir string, p *provider)
	// acmeOAuth is appended inside acme's oauth2 block (`,"post_consent":{…}`).
	acmeOAuth func(p *provider) string
	// acmeBase replaces acme's base_url (it gets the provider's URL).
	acmeBase func(p *provider) string
}

// newEnvWith is newEnv with options.
func newEnvWith(t *testing.T, authStyle string, o envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	p := newProvider(t, authStyle)
	dir := t.TempDir()
	plugDir := filepath.Join(dir, "plugins")
	acmeBase, acmeOAuth := p.srv.URL, ""
	if o.acmeBase != nil {
		acmeBase = o.acmeBase(p)
	}
	if o.acmeOAuth != nil {
		acmeOAuth = o.acmeOAuth(p)
	}
	writePlugin(t, plugDir, "acme", fmt.Sprintf(`{"name":"acme","version":"1","display_name":"Acme","description":"test","base_url":%q,
		"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q,"scopes":["read","write"],"authorize_params":{"prompt":"consent"},"token_auth_style":%q%s}}}`,
		acmeBase, p.srv.URL+"/authorize", p.srv.URL+"/token", map[string]string{"basic": "basic", "body": "body", "public": ""}[authStyle], acmeOAuth))
	writePlugin(t, plugDir, "keyed", fmt.Sprintf(`{"name":"keyed","version":"1","display_name":"Keyed","description":"test","base_url":%q,
		"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true},{"name":"region","label":"Region","optional":true}],
		"inject":{"in":"header","name":"X-Api-Key","field":"api_key"}}}}`, p.srv.URL))
	writePlugin(t, plugDir, "free", `{"name":"free","version":"1","display_name":"Free","description":"test","auth":{"mode":"none"}}`)
	if o.extra != nil {
		o.extra(plugDir, p)
	}
	reg, problems := plugins.Load(ctx, plugins.Options{PluginsDir: plugDir, AllowInsecureHTTP: true})
	if len(problems) > 0 {
		t.Fatalf("load plugins: %v", problems)
	}
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	secret := clientSecret
	if authStyle == "public" {
		secret = ""
	}
	b, err := bus.Open(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return &env{
		t: t, ctx: ctx, dir: dir, provider: p, key: key, catalog: reg, bus: b,
		linkKey: []byte(strings.Repeat("k", 32)), sessKey: []byte(strings.Repeat("s", 32)),
		clients: map[string]config.OAuthClient{"acme": {ID: clientID, Secret: secret}},
	}
}

func writePlugin(t *testing.T, root, name, manifest string) {
	t.Helper()
	d := filepath.Join(root, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, plugins.ManifestFile), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, plugins.ToolsFile), []byte(`[]`), 0o644); err != nil {
		t.Fatal(err)
	}
}

// node opens a replica on the shared SQLite file. The first replica runs the relay that publishes
// the log to the bus; every replica subscribes.
func (e *env) node(relay bool) *node {
	t := e.t
	t.Helper()
	ctx := e.ctx
	db, err := sqlite.OpenDB(ctx, filepath.Join(e.dir, "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(ctx, db, migrations.SQLite, nil); err != nil {
		t.Fatal(err)
	}
	store, err := sqlite.New(db, &sqlite.Options{PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, e.key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{connectionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{t: t, db: db, store: store, runner: runner, reader: connectionsrm.Reader{DB: db}}
	var h http.Handler
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	if e.publicURL == "" {
		e.publicURL = n.srv.URL
		e.provider.register(e.publicURL + "/api/auth/plugin/acme/callback")
	}
	cfg := connections.Config{
		Store: store, Vault: v, Catalog: e.catalog, DB: db, Projections: runner, Bus: e.bus,
		PublicURL: e.publicURL, LinkKey: e.linkKey, Clients: e.clients,
	}
	if e.opts != nil {
		e.opts(&cfg)
	}
	n.svc, err = connections.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.sess, err = websession.New(e.sessKey, e.publicURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	portalhttp.Mount(r, portalhttp.Deps{Credentials: n.svc, Sessions: n.sess, RedeemLimit: e.redeemLimit})
	h = r

	bg, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	goRun := func(f func(context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = f(bg) }()
	}
	goRun(runner.Run)
	if relay {
		rl, err := bus.NewRelay(bus.RelayConfig{Store: store, Bus: e.bus})
		if err != nil {
			t.Fatal(err)
		}
		goRun(rl.Run)
	}
	goRun(n.svc.Run)
	t.Cleanup(func() {
		n.srv.Close()
		stop()
		wg.Wait()
		store.Close()
		db.Close()
	})
	return n
}

// browser is a user agent with a cookie jar signed in to the portal as user (uuid.Nil: signed out).
func (n *node) browser(user uuid.UUID) *http.Client {
	jar, _ := cookiejar.New(nil)
	if user != uuid.Nil {
		c, err := n.sess.Cookie(user)
		if err != nil {
			n.t.Fatal(err)
		}
		u, _ := url.Parse(n.srv.URL)
		jar.SetCookies(u, []*http.Cookie{c})
	}
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// redeem posts the link's token from the portal page.
func (n *node) redeem(c *http.Client, link string) (int, map[string]string) {
	n.t.Helper()
	body, _ := json.Marshal(map[string]string{"token": link[strings.LastIndex(link, "/")+1:]})
	req, _ := http.NewRequest(http.MethodPost, n.srv.URL+"/api/connect/redeem", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", n.sess.Origin())
	resp, err := c.Do(req)
	if err != nil {
		n.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

// consent opens the provider URL and follows its redirect back to the callback; it returns the
// portal URL the callback redirected to.
func (n *node) consent(c *http.Client, providerURL string) *url.URL {
	n.t.Helper()
	resp, err := c.Get(providerURL)
	if err != nil {
		n.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		n.t.Fatalf("provider answered %d", resp.StatusCode)
	}
	return n.follow(c, resp.Header.Get("Location"))
}

// follow requests a callback URL and returns where it redirected.
func (n *node) follow(c *http.Client, callback string) *url.URL {
	n.t.Helper()
	resp, err := c.Get(callback)
	if err != nil {
		n.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		n.t.Fatalf("callback answered %d, want 303", resp.StatusCode)
	}
	u, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		n.t.Fatal(err)
	}
	return u
}

// connectOAuth runs the whole flow for user on n and returns the attempt id.
func (n *node) connectOAuth(ctx context.Context, user uuid.UUID) uuid.UUID {
	n.t.Helper()
	return n.connectOAuthAs(ctx, user, "")
}

// connectOAuthAs runs the whole flow for user's account labelled account ("" for the default).
func (n *node) connectOAuthAs(ctx context.Context, user uuid.UUID, account string) uuid.UUID {
	n.t.Helper()
	res, err := n.svc.Connect(ctx, user, "acme", account)
	if err != nil {
		n.t.Fatal(err)
	}
	c := n.browser(user)
	status, body := n.redeem(c, res.URL)
	if status != http.StatusOK {
		n.t.Fatalf("redeem: %d %v", status, body)
	}
	back := n.consent(c, body["url"])
	if back.Query().Get("connected") != "acme" {
		n.t.Fatalf("callback redirected to %s", back)
	}
	return res.ConnectionID
}

func decode(resp *http.Response, v any) error { return json.NewDecoder(resp.Body).Decode(v) }
