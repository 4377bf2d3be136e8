package connections_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
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
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers/portal"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/bus"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections"
	connectionsrm "github.com/workbench/workbench/projections/connections"
)

const (
	clientID     = "client-123"
	clientSecret = "s3cret/with:odd&chars"
)

// provider is an httptest OAuth 2.0 authorization server that checks what RFC 6749 and RFC 7636
// require of a client: the authorization request, PKCE S256 (it recomputes the challenge from the
// verifier it receives), the code exchange (grant_type, the exact redirect_uri, client
// authentication by the configured style) and the refresh grant.
type provider struct {
	t   *testing.T
	srv *httptest.Server

	// authStyle is what client authentication the token endpoint demands: "basic", "body" or
	// "public" (client_id in the body, no secret anywhere).
	authStyle   string
	redirectURI string

	mu            sync.Mutex
	codes         map[string]pendingCode
	refreshTokens map[string]bool // live refresh tokens
	denyConsent   bool
	noRefresh     bool   // the code exchange returns no refresh_token
	refreshMode   string // "rotate" (default), "keep" (no new refresh token) or "invalid_grant"
	expiresIn     int
	refreshDelay  time.Duration
	// resources is the JSON GET /resources answers a bearer of an issued token (Atlassian's
	// accessible-resources); resourceCalls counts the calls and lastBearer keeps the token used.
	resources string
	// slack makes grants look like Slack's oauth.v2.access: a bot token (token_type "bot") at the top
	// level and a user token in authed_user, each with its own refresh token; a refresh answers the
	// token of the refresh token's kind at the top level (token_type "bot" or "user").
	slack         bool
	slackKinds    map[string]string // refresh token → "bot" or "user"
	lastRefresh   string            // the refresh token last presented
	resourceCalls atomic.Int64
	lastBearer    string

	exchanges atomic.Int64
	refreshes atomic.Int64
	issued    atomic.Int64
}

type pendingCode struct {
	challenge   string
	redirectURI string
	used        bool
}

func newProvider(t *testing.T, authStyle string) *provider {
	p := &provider{t: t, authStyle: authStyle, codes: map[string]pendingCode{}, refreshTokens: map[string]bool{}, expiresIn: 3600, refreshMode: "rotate"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /authorize", p.authorize)
	mux.HandleFunc("POST /token", p.token)
	mux.HandleFunc("GET /resources", p.resourcesHandler)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

func (p *provider) set(f func(p *provider)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func (p *provider) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	for k, want := range map[string]string{"response_type": "code", "client_id": clientID, "redirect_uri": p.redirectURI, "code_challenge_method": "S256", "scope": "read write", "prompt": "consent"} {
		if got := q.Get(k); got != want {
			p.t.Errorf("authorize: %s = %q, want %q", k, got, want)
		}
	}
	ch := q.Get("code_challenge")
	if len(ch) != 43 {
		p.t.Errorf("authorize: code_challenge %q is not a base64url SHA-256", ch)
	}
	if q.Get("state") == "" {
		p.t.Errorf("authorize: no state")
	}
	back, _ := url.Parse(q.Get("redirect_uri"))
	bq := url.Values{"state": {q.Get("state")}}
	p.mu.Lock()
	if p.denyConsent {
		bq.Set("error", "access_denied")
	} else {
		code := "code-" + uuid.NewString()
		p.codes[code] = pendingCode{challenge: ch, redirectURI: q.Get("redirect_uri")}
		bq.Set("code", code)
	}
	p.mu.Unlock()
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (p *provider) resourcesHandler(w http.ResponseWriter, r *http.Request) {
	p.resourceCalls.Add(1)
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	p.lastBearer = tok
	body := p.resources
	p.mu.Unlock()
	if !ok || !strings.HasPrefix(tok, "at-") {
		p.fail(w, http.StatusUnauthorized, "invalid_token")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func (p *provider) fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"error":%q}`, code)
}

// checkClient verifies client authentication (RFC 6749 section 2.3.1; a public client under RFC
// 7636 sends only its client_id).
func (p *provider) checkClient(w http.ResponseWriter, r *http.Request) bool {
	user, pass, basic := r.BasicAuth()
	form := r.PostForm
	ok := false
	switch p.authStyle {
	case "basic":
		u, _ := url.QueryUnescape(user)
		s, _ := url.QueryUnescape(pass)
		ok = basic && u == clientID && s == clientSecret && !form.Has("client_secret")
	case "body":
		ok = !basic && form.Get("client_id") == clientID && form.Get("client_secret") == clientSecret
	case "public":
		ok = !basic && form.Get("client_id") == clientID && !form.Has("client_secret")
	}
	if !ok {
		p.t.Errorf("token: client authentication does not match style %s (basic=%v, form keys %v)", p.authStyle, basic, keys(form))
		p.fail(w, http.StatusUnauthorized, "invalid_client")
	}
	return ok
}

func keys(v url.Values) []string {
	var out []string
	for k := range v {
		out = append(out, k)
	}
	return out
}

func (p *provider) token(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "application/x-www-form-urlencoded" {
		p.t.Errorf("token: Content-Type %q", ct)
	}
	if err := r.ParseForm(); err != nil {
		p.fail(w, 400, "invalid_request")
		return
	}
	if !p.checkClient(w, r) {
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "authorization_code":
		p.exchanges.Add(1)
		p.mu.Lock()
		c, ok := p.codes[f.Get("code")]
		reused := c.used
		if ok {
			c.used = true
			p.codes[f.Get("code")] = c
		}
		p.mu.Unlock()
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok || reused:
			p.fail(w, 400, "invalid_grant")
			return
		case f.Get("redirect_uri") != c.redirectURI:
			p.t.Errorf("token: redirect_uri %q, want exactly %q", f.Get("redirect_uri"), c.redirectURI)
			p.fail(w, 400, "invalid_grant")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			p.t.Errorf("token: the code_verifier does not hash to the code_challenge")
			p.fail(w, 400, "invalid_grant")
			return
		}
		p.grant(w, !p.noRefreshToken())
	case "refresh_token":
		p.refreshes.Add(1)
		p.mu.Lock()
		live := p.refreshTokens[f.Get("refresh_token")]
		mode, delay := p.refreshMode, p.refreshDelay
		p.lastRefresh = f.Get("refresh_token")
		slackKind := p.slackKinds[f.Get("refresh_token")]
		if live && mode == "rotate" {
			delete(p.refreshTokens, f.Get("refresh_token"))
		}
		p.mu.Unlock()
		time.Sleep(delay)
		if !live || mode == "invalid_grant" {
			p.fail(w, 400, "invalid_grant")
			return
		}
		if slackKind != "" {
			p.slackRefresh(w, slackKind)
			return
		}
		p.grant(w, mode == "rotate")
	default:
		p.fail(w, 400, "unsupported_grant_type")
	}
}

func (p *provider) noRefreshToken() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.noRefresh
}

// slackGrant answers a code exchange the way Slack's oauth.v2.access does with token rotation on.
func (p *provider) slackGrant(w http.ResponseWriter) {
	n := strconv.FormatInt(p.issued.Add(1), 10)
	p.mu.Lock()
	botRT, userRT := "xoxe-1-bot-"+uuid.NewString(), "xoxe-1-user-"+uuid.NewString()
	p.refreshTokens[botRT], p.refreshTokens[userRT] = true, true
	if p.slackKinds == nil {
		p.slackKinds = map[string]string{}
	}
	p.slackKinds[botRT], p.slackKinds[userRT] = "bot", "user"
	expires := p.expiresIn
	p.mu.Unlock()
	body := map[string]any{"ok": true, "access_token": "xoxe.xoxb-" + n, "token_type": "bot", "scope": "chat:write,channels:read",
		"refresh_token": botRT, "expires_in": 43200, "bot_user_id": "U0KRQLJ9H", "app_id": "A0KRD7HC3",
		"team": map[string]any{"id": "T9TK3CUKW", "name": "Slack Softball Team"},
		"authed_user": map[string]any{"id": "U1234", "scope": "search:read", "access_token": "xoxe.xoxp-" + n, "token_type": "user",
			"refresh_token": userRT, "expires_in": expires}}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

// slackRefresh answers a refresh of one kind of Slack token: the new token at the top level.
func (p *provider) slackRefresh(w http.ResponseWriter, kind string) {
	n := strconv.FormatInt(p.issued.Add(1), 10)
	p.mu.Lock()
	rt := "xoxe-1-" + kind + "-" + uuid.NewString()
	p.refreshTokens[rt], p.slackKinds[rt] = true, kind
	p.mu.Unlock()
	prefix := map[string]string{"bot": "xoxe.xoxb-", "user": "xoxe.xoxp-"}[kind]
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "access_token": prefix + n, "token_type": kind, "refresh_token": rt, "expires_in": 43200})
}

func (p *provider) grant(w http.ResponseWriter, withRefresh bool) {
	p.mu.Lock()
	slack := p.slack
	p.mu.Unlock()
	if slack {
		p.slackGrant(w)
		return
	}
	n := p.issued.Add(1)
	body := map[string]any{"access_token": "at-" + strconv.FormatInt(n, 10) + "-" + uuid.NewString(), "token_type": "Bearer", "scope": "read write"}
	p.mu.Lock()
	if p.expiresIn > 0 { // 0: the provider gives no expires_in (GitHub OAuth apps)
		body["expires_in"] = p.expiresIn
	}
	if withRefresh {
		rt := "rt-" + uuid.NewString()
		p.refreshTokens[rt] = true
		body["refresh_token"] = rt
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(body)
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
	reg, problems := plugins.Load(ctx, plugins.Options{PluginsDir: plugDir, SkipBuiltins: true, AllowInsecureHTTP: true})
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
		e.provider.redirectURI = e.publicURL + "/api/auth/plugin/acme/callback"
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
	portal.Mount(r, portal.Deps{Credentials: n.svc, Sessions: n.sess, RedeemLimit: e.redeemLimit})
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
	res, err := n.svc.Connect(ctx, user, "acme")
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
