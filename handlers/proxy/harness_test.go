package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
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
	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers/proxy"
	"github.com/workbench/workbench/internal/config"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/connectionsrm"
)

var benchBody = []byte(`{"id":42,"login":"octocat","name":"The Octocat","public_repos":8,"followers":9000,"url":"https://api.example/users/octocat"}`)

const (
	apiKey       = "key-of-the-user"
	clientID     = "acme-client"
	clientSecret = "acme-secret"
)

// seen is one request as the fake provider received it.
type seen struct {
	Method     string
	RequestURI string
	Host       string
	Header     http.Header
	Body       []byte
}

// upstream is the fake provider API. It records every request exactly as it arrives; a handful of
// paths answer in special ways (redirects, large or streamed bodies, cookies).
type upstream struct {
	t   testing.TB
	srv *httptest.Server

	mu   sync.Mutex
	reqs []seen

	benchDelay atomic.Int64 // time.Duration
	// onRequest, when set, runs first for every request but the benchmark's.
	onRequest atomic.Pointer[func(*http.Request)]

	// streaming handshakes: the provider signals what it has read, the test what it has received.
	gotFirstChunk  chan struct{}
	sendRestOfBody chan struct{}
	respFirstSent  chan struct{}
	respContinue   chan struct{}
}

func newUpstream(t testing.TB) *upstream {
	u := &upstream{t: t, gotFirstChunk: make(chan struct{}, 1), sendRestOfBody: make(chan struct{}, 1),
		respFirstSent: make(chan struct{}, 1), respContinue: make(chan struct{}, 1)}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/base/bench" {
		// The benchmark's endpoint: a small JSON answer after benchDelay (the provider's own time to
		// answer), the credential checked, nothing recorded.
		if r.Header.Get("X-Api-Key") != apiKey || r.Header.Get("Authorization") != "" {
			http.Error(w, "bad credential", http.StatusUnauthorized)
			return
		}
		if d := time.Duration(u.benchDelay.Load()); d > 0 {
			time.Sleep(d)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(benchBody)))
		_, _ = w.Write(benchBody)
		return
	}
	if f := u.onRequest.Load(); f != nil {
		(*f)(r)
	}
	rec := seen{Method: r.Method, RequestURI: r.RequestURI, Host: r.Host, Header: r.Header.Clone()}
	switch r.URL.Path {
	case "/base/upload-stream":
		// Read the first chunk and say so; the client sends the rest only after that, so a proxy that
		// buffered the whole body would never get here.
		first := make([]byte, 5)
		if _, err := io.ReadFull(r.Body, first); err != nil {
			u.t.Errorf("upstream: first chunk: %v", err)
		}
		u.gotFirstChunk <- struct{}{}
		rest, _ := io.ReadAll(r.Body)
		rec.Body = append(first, rest...)
		u.add(rec)
		fmt.Fprintf(w, "got %d bytes", len(rec.Body))
		return
	}
	rec.Body, _ = io.ReadAll(r.Body)
	u.add(rec)
	switch r.URL.Path {
	case "/base/redirect-same":
		http.Redirect(w, r, "/base/next?page=2", http.StatusFound)
	case "/base/redirect-outside":
		http.Redirect(w, r, "/login", http.StatusFound)
	case "/base/redirect-away":
		w.Header().Set("Location", "https://elsewhere.example/steal")
		w.WriteHeader(http.StatusTemporaryRedirect)
	case "/base/cookies":
		http.SetCookie(w, &http.Cookie{Name: "provider_session", Value: "p", Path: "/"})
		w.Header().Set("Strict-Transport-Security", "max-age=31536000")
		w.Header().Set("Clear-Site-Data", `"*"`)
		w.Header().Set("X-Provider", "kept")
		_, _ = w.Write([]byte("<html><script>alert(1)</script></html>"))
	case "/base/close":
		// The provider ends the connection after this answer (RFC 9112 section 9.6).
		w.Header().Set("Connection", "close")
		_, _ = w.Write([]byte("bye"))
	case "/base/big":
		w.Header().Set("Content-Length", strconv.Itoa(2048))
		_, _ = w.Write(make([]byte, 2048))
	case "/base/big-stream":
		for range 4 {
			_, _ = w.Write(make([]byte, 512))
			w.(http.Flusher).Flush()
		}
	case "/base/download-stream":
		_, _ = w.Write([]byte("first"))
		w.(http.Flusher).Flush()
		u.respFirstSent <- struct{}{}
		select {
		case <-u.respContinue:
		case <-time.After(20 * time.Second):
			u.t.Errorf("upstream: the client never saw the first chunk")
		}
		_, _ = w.Write([]byte("-rest"))
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		if r.Method != http.MethodHead {
			_ = json.NewEncoder(w).Encode(map[string]any{"path": r.URL.Path, "method": r.Method})
		}
	}
}

func (u *upstream) add(s seen) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.reqs = append(u.reqs, s)
}

func (u *upstream) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.reqs)
}

func (u *upstream) last(t testing.TB) seen {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.reqs) == 0 {
		t.Fatal("the provider received no request")
	}
	return u.reqs[len(u.reqs)-1]
}

// env is one workbench replica in miniature: a SQLite file with the real event store, vault,
// connections read model and credential service, the real plugin registry loaded from test
// plugins, and the proxy mounted at /c/* on an httptest server.
type env struct {
	t        testing.TB
	ctx      context.Context
	api      *upstream
	oauth    *testenv.OAuthProvider
	store    eventstore.Store
	creds    *connections.Service
	catalog  *plugins.Registry
	sessions *curlsessions.Service
	proxy    *proxy.Proxy
	srv      *httptest.Server
	clock    *testenv.Clock
	key      []byte
	user     uuid.UUID
	stopRun  func()
	dbPath   string
}

type envOptions struct {
	maxRequest, maxResponse int64
	// wrapStore, when set, wraps the store the proxy appends to (to make it fail).
	wrapStore func(curlsessions.Appender) curlsessions.Appender
	// apiHost, when set, names the fake provider in the manifests by this host name instead of
	// 127.0.0.1 (the transport must then resolve it: see transport).
	apiHost string
	// transport, when set, is the proxy's Options.Transport.
	transport http.RoundTripper
}

func newEnv(t testing.TB, o envOptions) *env {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, clock: &testenv.Clock{}, key: []byte(strings.Repeat("c", 32)), user: uuid.New()}
	e.api = newUpstream(t)
	// acme's authorization server grants tokens announced to live 5 seconds, so a call soon refreshes.
	e.oauth = testenv.NewOAuthProvider(t)
	e.oauth.Set(func(s *testenv.OAuthSettings) { s.ExpiresIn, s.Expect = 5, map[string]string{"scope": "read"} })
	dir := t.TempDir()
	plugDir := filepath.Join(dir, "plugins")
	write := func(name, manifest string) {
		d := filepath.Join(plugDir, name)
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
	apiURL := e.api.srv.URL
	if o.apiHost != "" {
		apiURL = strings.Replace(apiURL, "127.0.0.1", o.apiHost, 1)
	}
	apikey := `"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true}],"inject":{"in":"header","name":"X-Api-Key"}}}`
	write("keyed", fmt.Sprintf(`{"name":"keyed","version":"1","display_name":"Keyed","description":"test","base_url":%q,
		"headers":{"Accept":"application/vnd.keyed+json"},"proxy":{"base_url":%q},%s}`, apiURL, apiURL+"/base", apikey))
	write("other", fmt.Sprintf(`{"name":"other","version":"1","display_name":"Other","description":"test","base_url":%q,"proxy":{},%s}`, e.api.srv.URL, apikey))
	write("noproxy", fmt.Sprintf(`{"name":"noproxy","version":"1","display_name":"No proxy","description":"test","base_url":%q,%s}`, e.api.srv.URL, apikey))
	write("free", fmt.Sprintf(`{"name":"free","version":"1","display_name":"Free","description":"test","base_url":%q,"proxy":{},"auth":{"mode":"none"}}`, e.api.srv.URL+"/base"))
	write("acme", fmt.Sprintf(`{"name":"acme","version":"1","display_name":"Acme","description":"test","base_url":%q,"proxy":{},
		"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q,"scopes":["read"],"token_auth_style":"body"}}}`,
		e.api.srv.URL+"/base/acme", e.oauth.AuthorizeURL(), e.oauth.TokenURL()))
	reg, problems := plugins.Load(ctx, plugins.Options{PluginsDir: plugDir, AllowInsecureHTTP: true})
	if len(problems) > 0 {
		t.Fatalf("load plugins: %v", problems)
	}
	e.catalog = reg

	e.dbPath = filepath.Join(dir, "wb.db")
	db, err := sqlite.OpenDB(ctx, e.dbPath)
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
	e.store = store
	mk, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, mk, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, migrations.SQLite, &projections.Options{Projections: []projections.Projection{connectionsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var h http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	e.oauth.AddClient(testenv.OAuthClient{ID: clientID, Secret: clientSecret, RedirectURIs: []string{e.srv.URL + "/api/auth/plugin/acme/callback"}, Auth: testenv.AuthPost})
	e.creds, err = connections.New(connections.Config{
		Store: store, Vault: v, Catalog: reg, DB: db, Projections: runner,
		PublicURL: e.srv.URL, LinkKey: []byte(strings.Repeat("k", 32)), Clients: map[string]config.OAuthClient{"acme": {ID: clientID, Secret: clientSecret}},
		Now: e.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	var appender curlsessions.Appender = store
	if o.wrapStore != nil {
		appender = o.wrapStore(store)
	}
	e.sessions = newSessions(t, e, appender)
	e.proxy, err = proxy.New(proxy.Options{
		Catalog: reg, Credentials: e.creds, Sessions: e.sessions, Key: e.key, PublicURL: e.srv.URL,
		MaxRequestBytes: o.maxRequest, MaxResponseBytes: o.maxResponse, Now: e.clock.Now, Transport: o.transport,
	})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Handle("/c/*", e.proxy) // as Main mounts it
	h = r

	bg, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, run := range []func(context.Context) error{runner.Run, e.sessions.Run} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = run(bg) }()
	}
	e.stopRun = func() { stop(); wg.Wait() }
	t.Cleanup(func() {
		e.srv.Close()
		e.stopRun()
		store.Close()
		db.Close()
	})
	if err := e.creds.ConnectAPIKey(ctx, e.user, "keyed", "", map[string]string{"api_key": apiKey}); err != nil {
		t.Fatal(err)
	}
	return e
}

// connectAcme runs the OAuth flow for the user against the fake provider, through the credential
// service's own steps (claim link, redeem, consent, callback).
func (e *env) connectAcme(t *testing.T) {
	t.Helper()
	res, err := e.creds.Connect(e.ctx, e.user, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	red, err := e.creds.Redeem(e.ctx, e.user, res.URL[strings.LastIndex(res.URL, "/")+1:])
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(red.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.creds.Callback(e.ctx, e.user, "acme", back.Query()); err != nil {
		t.Fatal(err)
	}
}

// newSessions is the curl session use case over store, issuing tokens under e.key, as Main wires it.
func newSessions(t testing.TB, e *env, store curlsessions.Appender) *curlsessions.Service {
	t.Helper()
	issuer, err := proxy.NewIssuer(e.key)
	if err != nil {
		t.Fatal(err)
	}
	s, err := curlsessions.New(curlsessions.Options{
		Catalog: e.catalog, Credentials: e.creds, Store: store, Tokens: issuer, PublicURL: e.srv.URL, Now: e.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (e *env) mint(t *testing.T, user uuid.UUID, names ...string) curlsessions.Session {
	t.Helper()
	s, err := e.sessions.Mint(e.ctx, curlsessions.MintRequest{UserID: user, Via: "api_key", ClientID: "key-1", Integrations: names})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// do sends one request through the proxy with the token (when not empty) and returns the status,
// headers and body.
func (e *env) do(t *testing.T, method, path, token string, body io.Reader, hdr map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(e.ctx, method, e.srv.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// events returns every event of the given type in the log, decoded into T, waiting (up to 10s)
// until there are at least want.
func events[T any](t testing.TB, e *env, typ string, want int) []T {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out []T
		from := eventstore.Start
		for {
			batch, err := e.store.ReadAll(e.ctx, from, 500)
			if err != nil {
				t.Fatal(err)
			}
			for _, env := range batch {
				if env.Type == typ {
					var v T
					if err := json.Unmarshal(env.Data, &v); err != nil {
						t.Fatal(err)
					}
					out = append(out, v)
				}
				from = env.Position
			}
			if len(batch) < 500 {
				break
			}
		}
		if len(out) >= want || time.Now().After(deadline) {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rawLog is the whole log's event data as one string, to prove what it never holds.
func rawLog(t *testing.T, e *env) string {
	t.Helper()
	var b strings.Builder
	from := eventstore.Start
	for {
		batch, err := e.store.ReadAll(e.ctx, from, 500)
		if err != nil {
			t.Fatal(err)
		}
		for _, env := range batch {
			b.Write(env.Data)
			mb, _ := json.Marshal(env.Metadata)
			b.Write(mb)
			from = env.Position
		}
		if len(batch) < 500 {
			return b.String()
		}
	}
}

var _ = curlsession.TypeRequestProxied

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func authed(t testing.TB, method, path, token string) *http.Request {
	t.Helper()
	r := httptest.NewRequest(method, path, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func mintFor(e *env) curlsessions.MintRequest {
	return curlsessions.MintRequest{UserID: e.user, Via: "api_key", Integrations: []string{"keyed"}}
}
