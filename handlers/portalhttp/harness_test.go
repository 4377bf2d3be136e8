package portalhttp_test

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/portalsessions"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/portalhttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/connectionsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/portalsessionsrm"
)

const (
	oidcClientID     = "workbench-portal"
	oidcClientSecret = "oidc-secret/with:odd&chars"
)

// idp is the test environment's fake provider as an OpenID provider: discovery, a JWKS, an
// authorization endpoint that consents at once (the portal's client, HTTP Basic, redirect URI
// registered once the public URL is known, scope holding openid, a nonce), and a token endpoint that
// checks the code, the redirect URI, client authentication and the PKCE verifier before issuing an
// RS256 ID token. claims, when set, rewrites the ID token's claims before signing; signWith, when
// set, signs with another key than the published one; set applies the fields.
type idp struct {
	*testenv.OAuthProvider
	srv   *httptest.Server
	email string
	name  string

	mu       sync.Mutex
	claims   func(map[string]any)
	signWith *rsa.PrivateKey
	denied   bool
}

func newIDP(t *testing.T) *idp {
	p := &idp{OAuthProvider: testenv.NewOAuthProvider(t), email: "Ann@Example.com", name: "Ann Lee"}
	p.srv = p.Server()
	p.set(func(*idp) {})
	return p
}

// register makes the portal's client known with its callback.
func (p *idp) register(redirect string) {
	p.AddClient(testenv.OAuthClient{ID: oidcClientID, Secret: oidcClientSecret, RedirectURIs: []string{redirect}, Auth: testenv.AuthBasic})
}

func (p *idp) set(f func(*idp)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
	p.Set(func(s *testenv.OAuthSettings) {
		s.OpenID, s.ExpectScopes, s.Deny = true, []string{"openid"}, p.denied
		s.User = testenv.OIDCUser{Subject: "sub-" + p.email, Email: p.email, Name: p.name, EmailVerified: true}
		s.Claims, s.SignWith = p.claims, p.signWith
	})
}

// platformKeys is the platform keys an instance admin set, as app/platformkeys answers them.
type platformKeys struct {
	mu   sync.Mutex
	keys map[string]map[string]string
}

func (p *platformKeys) set(name string, fields map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.keys == nil {
		p.keys = map[string]map[string]string{}
	}
	p.keys[name] = fields
}

func (p *platformKeys) PlatformKey(_ context.Context, name string) (map[string]string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f, ok := p.keys[name]
	return maps.Clone(f), ok, nil
}

// env is a workbench as the portal API sees it, on one SQLite file that its replicas share.
type env struct {
	t         *testing.T
	ctx       context.Context
	dir       string
	idp       *idp
	oauth     *httptest.Server // the acme integration's authorization server (only /authorize is visited)
	key       vault.MasterKey
	catalog   *plugins.Registry
	clock     *testenv.Clock
	settings  signin.Settings
	publicURL string
	// admins are the instance admins' emails (Deps.Admins).
	admins []string
	// keys are the platform keys every replica reads (app/connections Config.PlatformKeys).
	keys *platformKeys
	// linkLimit is the sign-in link redemptions a client address may attempt per minute (0: the
	// default).
	linkLimit int
}

// node is one replica.
type node struct {
	env      *env
	srv      *httptest.Server
	sessions *websession.Manager
	signin   *signin.Service
	accounts *accounts.Service
	auth     authn.APIKeys
	runner   *projections.Runner
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	dir := t.TempDir()
	oauth := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(oauth.Close)
	plugDir := filepath.Join(dir, "plugins")
	writePlugin(t, plugDir, "acme", fmt.Sprintf(`{"name":"acme","version":"1","display_name":"Acme","description":"Acme's API","categories":["dev"],"base_url":%q,"logo":"logo.svg",
		"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q,"scopes":["read"]}}}`, oauth.URL, oauth.URL+"/authorize", oauth.URL+"/token"),
		map[string]string{"logo.svg": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><rect width="1" height="1"/></svg>`})
	writePlugin(t, plugDir, "keyed", fmt.Sprintf(`{"name":"keyed","version":"1","display_name":"Keyed","description":"needs a key","base_url":%q,
		"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true,"placeholder":"kx_..."},{"name":"region","label":"Region","optional":true}],
		"inject":{"in":"header","name":"X-Api-Key","field":"api_key"}}}}`, oauth.URL), nil)
	writePlugin(t, plugDir, "unset", fmt.Sprintf(`{"name":"unset","version":"1","display_name":"Unset","description":"no client set","base_url":%q,
		"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q}}}`, oauth.URL, oauth.URL+"/authorize", oauth.URL+"/token"), nil)
	writePlugin(t, plugDir, "free", `{"name":"free","version":"1","display_name":"Free","description":"no auth","auth":{"mode":"none"}}`, nil)
	reg, problems := plugins.Load(ctx, plugins.Options{PluginsDir: plugDir, AllowInsecureHTTP: true})
	if len(problems) > 0 {
		t.Fatalf("load plugins: %v", problems)
	}
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	p := newIDP(t)
	return &env{
		t: t, ctx: ctx, dir: dir, idp: p, oauth: oauth, key: key, catalog: reg, clock: &testenv.Clock{}, keys: &platformKeys{},
		settings: signin.Settings{
			Providers:  []signin.ProviderConfig{{ID: "google", Name: "Google", Issuer: p.srv.URL, ClientID: oidcClientID, ClientSecret: oidcClientSecret}},
			AdminEmail: "admin@workbench.localhost",
		},
	}
}

func writePlugin(t *testing.T, root, name, manifest string, files map[string]string) {
	t.Helper()
	d := filepath.Join(root, name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	all := map[string]string{plugins.ManifestFile: manifest, plugins.ToolsFile: `[]`}
	for f, body := range files {
		all[f] = body
	}
	for f, body := range all {
		if err := os.WriteFile(filepath.Join(d, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// node opens a replica on the shared SQLite file, with its own event store, read-model runner,
// vault, services and HTTP server. The first node's URL is SERVER_PUBLIC_URL for every replica.
func (e *env) node() *node {
	t := e.t
	t.Helper()
	db, err := sqlite.OpenDB(e.ctx, filepath.Join(e.dir, "wb.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := migrations.Apply(e.ctx, db, migrations.SQLite, nil); err != nil {
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
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(v), connectionsrm.New(), portalsessionsrm.New()}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	n := &node{env: e, runner: runner, auth: authn.APIKeys{Reader: identityrm.Reader{DB: db}}}
	var h http.Handler
	n.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	if e.publicURL == "" {
		e.publicURL = n.srv.URL
		e.idp.register(e.publicURL + "/api/auth/google/callback")
	}
	n.accounts = &accounts.Service{Store: store, Vault: v}
	creds, err := connections.New(connections.Config{
		Store: store, Vault: v, Catalog: e.catalog, DB: db, Projections: runner, PublicURL: e.publicURL,
		LinkKey: []byte(strings.Repeat("l", 32)), Now: e.clock.Now,
		Clients: map[string]config.OAuthClient{"acme": {ID: "acme-client"}}, PlatformKeys: e.keys,
	})
	if err != nil {
		t.Fatal(err)
	}
	n.sessions, err = websession.New([]byte(strings.Repeat("s", 32)), e.publicURL, &websession.Options{
		Now: e.clock.Now, Ended: portalsessionsrm.Reader{DB: db}, Ends: endsFor(t, store, runner, e.clock.Now),
	})
	if err != nil {
		t.Fatal(err)
	}
	n.signin, err = signin.New(signin.Config{
		Settings: e.settings, Users: n.accounts, Store: store, Projections: runner, PublicURL: e.publicURL,
		FlowKey: []byte(strings.Repeat("f", 32)), Now: e.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	portalhttp.Mount(r, portalhttp.Deps{
		Sessions: n.sessions, SignIn: n.signin, Accounts: n.accounts, Projections: runner,
		Credentials: creds, Catalog: e.catalog, Connections: connectionsrm.Reader{DB: db}, Now: e.clock.Now,
		APIKeys:   n.auth,
		LinkLimit: e.linkLimit, Admins: e.admins,
	})
	h = n.sessions.Guard(r)
	bg, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(bg) }()
	t.Cleanup(func() {
		n.srv.Close()
		stop()
		<-done
		store.Close()
		db.Close()
	})
	return n
}

// browser is a user agent with its own cookie jar that follows no redirect by itself.
type browser struct {
	t      *testing.T
	client *http.Client
}

func newBrowser(t *testing.T) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, client: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// signedIn is a browser holding a session for user, minted directly (for tests of the other routes).
func (n *node) signedIn(user uuid.UUID) *browser {
	b := newBrowser(n.env.t)
	c, err := n.sessions.Cookie(user)
	if err != nil {
		n.env.t.Fatal(err)
	}
	u, _ := url.Parse(n.srv.URL)
	b.client.Jar.SetCookies(u, []*http.Cookie{c})
	return b
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("not JSON (status %d): %s", r.status, r.body)
	}
	return m
}

// do sends a request. A state-changing one carries the portal's CSRF header unless headers say
// otherwise (a "-" value removes a header).
func (b *browser) do(method, rawURL string, body string, headers map[string]string) response {
	b.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, rawURL, rd)
	if err != nil {
		b.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if method != http.MethodGet {
		req.Header.Set(websession.CSRFHeader, "1")
	}
	for k, v := range headers {
		if v == "-" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: raw}
}

func (b *browser) get(rawURL string) response { return b.do(http.MethodGet, rawURL, "", nil) }

// createUser makes a user the way sign-in does.
func (n *node) createUser(email string) uuid.UUID {
	n.env.t.Helper()
	u, _, pos, err := n.accounts.EnsureUser(n.env.ctx, email, "", domainMD())
	if err != nil {
		n.env.t.Fatal(err)
	}
	if err := n.runner.WaitFor(n.env.ctx, pos); err != nil {
		n.env.t.Fatal(err)
	}
	return u.ID
}

func domainMD() eventstore.Metadata { return eventstore.Metadata{Actor: "test"} }

// endsFor records portal-session ends through the use case the server uses, on the test's clock.
func endsFor(t *testing.T, store eventstore.Store, runner portalsessions.Waiter, now func() time.Time) *portalsessions.Service {
	t.Helper()
	s, err := portalsessions.New(store, runner, now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
