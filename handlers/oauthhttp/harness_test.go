package oauthhttp_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/oauthclients"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/postgres"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/handlers/authn"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/handlers/oauthhttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/httpserve"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/oauthrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// env is a whole authorization server and a stand-in /mcp on a real HTTP server and a real database.
type env struct {
	t        *testing.T
	public   string
	srv      *httptest.Server
	oauth    *oauthhttp.Server
	sessions *websession.Manager
	store    eventstore.Store
	db       *sql.DB
	runner   *projections.Runner
	orgs     *organizations.Service
	user     uuid.UUID
	cookie   *http.Cookie
	http     *http.Client // never follows redirects
	now      time.Time    // zero: real time
}

type envOptions struct {
	postgres          bool
	registrationLimit int
	// failWait, when set and true, makes the server's waits for the read model fail, as when the
	// database stops right after an append.
	failWait *atomic.Bool
	// publicHost, when set, is the host name of the public URL (its port is the listener's, on
	// 127.0.0.1); the client then dials 127.0.0.1 whatever host a URL names, so that a request can
	// name any Host without the system resolver.
	publicHost string
}

// flakyWaiter is the projection runner with waits that fail while fail is true.
type flakyWaiter struct {
	*projections.Runner
	fail *atomic.Bool
}

func (f flakyWaiter) WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error {
	if f.fail != nil && f.fail.Load() {
		return errors.New("read model unreachable")
	}
	return f.Runner.WaitForProjection(ctx, name, pos)
}

func newEnv(t *testing.T, o envOptions) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var db *sql.DB
	var store eventstore.Store
	dialect := migrations.SQLite
	if o.postgres {
		url := testenv.PostgresURL(t)
		var err error
		if db, err = sql.Open("pgx", url); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dialect = migrations.Postgres
		if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
			t.Fatal(err)
		}
		pool, err := pgxpool.New(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		s, err := postgres.New(ctx, pool, nil)
		if err != nil {
			t.Fatal(err)
		}
		store = s
	} else {
		var err error
		if db, err = sqlite.OpenDB(ctx, filepath.Join(t.TempDir(), "wb.db")); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
			t.Fatal(err)
		}
		s, err := sqlite.New(db, nil)
		if err != nil {
			t.Fatal(err)
		}
		store = s
	}
	t.Cleanup(func() { store.Close() })
	runner, err := projections.NewRunner(store, db, dialect, &projections.Options{
		Projections: []projections.Projection{identityrm.New(), oauthrm.New(), organizationsrm.New()}, PollInterval: 50 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, public: "http://" + ln.Addr().String(), store: store, db: db, runner: runner}
	if o.publicHost != "" {
		e.public = fmt.Sprintf("http://%s:%d", o.publicHost, ln.Addr().(*net.TCPAddr).Port)
	}
	key := make([]byte, 32)
	rand.Read(key)
	if e.sessions, err = websession.New(key, e.public, nil); err != nil {
		t.Fatal(err)
	}
	users := identityrm.Reader{DB: db}
	now := func() time.Time {
		if !e.now.IsZero() {
			return e.now
		}
		return time.Now()
	}
	clients, err := oauthclients.New(oauthclients.Options{Store: store, Projections: flakyWaiter{runner, o.failWait}, Grants: oauthrm.Reader{DB: db}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	orgReader := &organizationsrm.Reader{DB: db}
	if e.orgs, err = organizations.New(organizations.Options{Store: store, Reader: orgReader, Projections: runner, Grants: clients}); err != nil {
		t.Fatal(err)
	}
	e.oauth, err = oauthhttp.New(oauthhttp.Options{
		Clients: clients, DB: db, Sessions: e.sessions, Users: users, Agents: orgReader, PublicURL: e.public,
		SigningKey: key, RegistrationLimit: o.registrationLimit, Now: now,
	})
	if err != nil {
		t.Fatal(err)
	}
	mcpServer, err := mcp.New(mcp.Options{
		Auth:                authn.Chain{authn.APIKeys{Reader: users}, authn.AccessTokens{Verifier: e.oauth, Users: users}},
		Tools:               whoami{},
		SessionKey:          key,
		AllowedOrigins:      []string{e.sessions.Origin()},
		Loopback:            httpserve.NewLoopback(e.public),
		ResourceMetadataURL: e.oauth.ProtectedResourceMetadataURL(),
	})
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	r.Use(middleware.RequestID)
	r.Handle("/mcp", mcpServer)
	e.oauth.Mount(r)
	e.srv = &httptest.Server{Listener: ln, Config: &http.Server{Handler: r}}
	e.srv.Start()
	t.Cleanup(e.srv.Close)
	e.http = &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if o.publicHost != "" {
		addr := ln.Addr().String()
		e.http.Transport = &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}
	}

	e.cookie = e.newSession("ada@example.com")
	e.user, _ = e.sessions.User(&http.Request{Header: http.Header{"Cookie": {e.cookie.String()}}})
	return e
}

// newSession creates a user and returns a portal session cookie for them.
func (e *env) newSession(email string) *http.Cookie {
	e.t.Helper()
	ctx := context.Background()
	u, _, pos, err := (&accounts.Service{Store: e.store}).EnsureUser(ctx, email, "", eventstore.Metadata{Actor: "test"})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.runner.WaitFor(ctx, pos); err != nil {
		e.t.Fatal(err)
	}
	c, err := e.sessions.Cookie(u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// whoami is the stand-in tool set of /mcp.
type whoami struct{}

func (whoami) Tools() []mcp.Tool {
	return []mcp.Tool{{Name: "whoami", Description: "who is calling", InputSchema: json.RawMessage(`{"type":"object"}`)}}
}

func (whoami) CallTool(_ context.Context, p mcp.Principal, _ string, _ json.RawMessage) (mcp.CallResult, error) {
	return mcp.CallResult{Text: p.Method + ":" + p.UserID + ":" + p.ClientID}, nil
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
		t.Fatalf("status %d, body %q is not JSON: %v", r.status, r.body, err)
	}
	return m
}

func (e *env) do(req *http.Request) response {
	e.t.Helper()
	res, err := e.http.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func (e *env) postForm(path string, form url.Values) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.public+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return e.do(req)
}

func (e *env) postJSON(path string, v any) response {
	e.t.Helper()
	b, _ := json.Marshal(v)
	req, _ := http.NewRequest(http.MethodPost, e.public+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return e.do(req)
}

// mcpCall sends an initialize request to /mcp with the given Authorization header value.
func (e *env) mcpCall(authorization, query string) response {
	e.t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, e.public+"/mcp"+query, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	return e.do(req)
}

// register registers a client with one redirect URI and returns its id.
func (e *env) register(redirect string) string {
	e.t.Helper()
	res := e.postJSON("/oauth/register", map[string]any{"client_name": "Test Client", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	if res.status != http.StatusCreated {
		e.t.Fatalf("register: %d %s", res.status, res.body)
	}
	return res.json(e.t)["client_id"].(string)
}

// pkce returns a fresh verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authParams are the parameters of an authorization request as an MCP client builds them.
func (e *env) authParams(clientID, redirect, challenge string) url.Values {
	return url.Values{
		"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {redirect}, "state": {"state-" + uuid.NewString()},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"mcp"}, "resource": {e.oauth.Resource()},
	}
}

// consentPage opens the consent page as the signed-in browser (cookie may be nil: signed out).
func (e *env) consentPage(params url.Values, cookie *http.Cookie) response {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.public+"/oauth/authorize?"+params.Encode(), nil)
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return e.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

func csrfOf(t *testing.T, page response) string {
	t.Helper()
	m := csrfField.FindSubmatch(page.body)
	if m == nil {
		t.Fatalf("no CSRF token on the page (status %d): %s", page.status, page.body)
	}
	return string(m[1])
}

// decide posts the consent form as the browser would: the page's parameters, its CSRF token, the
// decision, and a same-origin Origin header.
func (e *env) decide(params url.Values, csrf, decision string, cookie *http.Cookie, origin string) response {
	e.t.Helper()
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	if csrf != "" {
		form.Set("csrf_token", csrf)
	}
	form.Set("decision", decision)
	req, _ := http.NewRequest(http.MethodPost, e.public+"/oauth/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	return e.do(req)
}

// authorize runs consent to the end and returns the code.
func (e *env) authorize(params url.Values) string {
	e.t.Helper()
	page := e.consentPage(params, e.cookie)
	if page.status != http.StatusOK {
		e.t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	res := e.decide(params, csrfOf(e.t, page), "allow", e.cookie, e.public)
	loc := redirectQuery(e.t, res)
	if loc.Get("state") != params.Get("state") {
		e.t.Fatalf("state %q, want %q", loc.Get("state"), params.Get("state"))
	}
	if loc.Get("code") == "" {
		e.t.Fatalf("no code in redirect: %v", loc)
	}
	return loc.Get("code")
}

// redirectQuery returns the query of a redirect answer.
func redirectQuery(t *testing.T, res response) url.Values {
	t.Helper()
	if res.status != http.StatusSeeOther && res.status != http.StatusFound {
		t.Fatalf("want a redirect, got %d %s", res.status, res.body)
	}
	u, err := url.Parse(res.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

// exchange redeems a code; it returns the answer.
func (e *env) exchange(clientID, redirect, code, verifier string) response {
	e.t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {clientID},
		"resource": {e.oauth.Resource()}}
	if verifier != "" {
		form.Set("code_verifier", verifier)
	}
	return e.postForm("/oauth/token", form)
}

func (e *env) refresh(clientID, refreshToken string) response {
	e.t.Helper()
	return e.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID}})
}

type tokens struct{ access, refresh string }

func tokensOf(t *testing.T, res response) tokens {
	t.Helper()
	if res.status != http.StatusOK {
		t.Fatalf("token endpoint: %d %s", res.status, res.body)
	}
	m := res.json(t)
	at, _ := m["access_token"].(string)
	rt, _ := m["refresh_token"].(string)
	if at == "" || rt == "" {
		t.Fatalf("token answer without both tokens: %s", res.body)
	}
	return tokens{at, rt}
}

// connect runs registration, consent and exchange: a client with live tokens.
func (e *env) connect(redirect string) (clientID string, tok tokens) {
	e.t.Helper()
	clientID = e.register(redirect)
	verifier, challenge := pkce()
	code := e.authorize(e.authParams(clientID, redirect, challenge))
	return clientID, tokensOf(e.t, e.exchange(clientID, redirect, code, verifier))
}

func oauthErrorOf(t *testing.T, res response) string {
	t.Helper()
	code, _ := res.json(t)["error"].(string)
	return code
}

func (e *env) portal(method, path string) response {
	e.t.Helper()
	req, _ := http.NewRequest(method, e.public+path, nil)
	req.AddCookie(e.cookie)
	req.Header.Set(websession.CSRFHeader, "1")
	return e.do(req)
}
