package browserhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
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

	"github.com/workbench/workbench/app/browser"
	"github.com/workbench/workbench/app/browser/replicaauth"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/handlers/browserhttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/connectionsrm"
)

// chromium is the machine's Chromium; without it the test is skipped, and fails under CI=true.
func chromium(t testing.TB) string { return testenv.ChromiumBin(t) }

// site is the target service, served on 127.0.0.1: a page with a button over its top-left corner, one
// whose button changes the address without loading a page, a login form that sets a session cookie, and /api/me, which answers the Cookie header it received.
type site struct {
	srv *httptest.Server
	mu  sync.Mutex
	me  []string // the Cookie header of every /api/me
}

const buttonPage = `<!doctype html><html><head><title>Button</title><style>body{margin:0}
#b{position:absolute;left:0;top:0;width:400px;height:300px;font-size:40px}</style></head>
<body><button id=b onclick="document.getElementById('out').textContent='clicked';document.body.style.background='#0a0'">Press</button>
<p id=out style="position:absolute;top:320px">not yet</p></body></html>`

// spaPage changes its address without loading anything, as a single-page application does.
const spaPage = `<!doctype html><html><head><title>App</title><style>body{margin:0}
#b{position:absolute;left:0;top:0;width:400px;height:300px;font-size:40px}</style></head>
<body><button id=b onclick="history.pushState({}, '', '/spa/inbox#unread')">Inbox</button></body></html>`

const loginPage = `<!doctype html><html><head><title>Sign in</title><style>body{margin:0}
#user{position:absolute;left:0;top:0;width:400px;height:100px;font-size:30px}</style></head>
<body><form method=post action=/login><input id=user name=user autofocus></form></body></html>`

func newSite(t *testing.T) *site {
	s := &site{}
	mux := http.NewServeMux()
	mux.HandleFunc("/button", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, buttonPage) })
	mux.HandleFunc("GET /spa", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, spaPage) })
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, loginPage) })
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		user := r.PostFormValue("user")
		if user == "" {
			http.Error(w, "no user", http.StatusBadRequest)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "session-of-" + user, Path: "/", MaxAge: 3600, HttpOnly: true})
		http.Redirect(w, r, "/home", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		name := "nobody"
		if c, err := r.Cookie("sid"); err == nil {
			name = strings.TrimPrefix(c.Value, "session-of-")
		}
		fmt.Fprintf(w, "<!doctype html><title>Home</title><p id=hello>Hello, %s</p>", strings.ReplaceAll(name, "<", ""))
	})
	mux.HandleFunc("/api/me", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.me = append(s.me, r.Header.Get("Cookie"))
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"name":"ada"}`)
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *site) lastCookie() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.me) == 0 {
		return "<no request>"
	}
	return s.me[len(s.me)-1]
}

// env is a served live view over a real Chromium pool, a real SQLite log and read models, and the
// connections service (for captures).
type env struct {
	t       *testing.T
	ctx     context.Context
	site    *site
	clock   *testenv.Clock
	browser *browser.Service
	conns   *connections.Service
	catalog *plugins.Registry
	sess    *websession.Manager
	srv     *httptest.Server
	db      testenv.SQLiteDB
	// replicas signs requests between replicas (the test plays the other replica).
	replicas *replicaauth.Signer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	bin := chromium(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, site: newSite(t), clock: testenv.NewClock(time.Now().UTC())}
	e.db = testenv.OpenSQLite(t)
	vault := testenv.Vault(t, e.db.DB, e.db.Store)

	dir := filepath.Join(t.TempDir(), "plugins", "intranet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"name":"intranet","version":"1","display_name":"Intranet","description":"test","base_url":%q,
		"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"]}}}`, e.site.srv.URL)
	tools := `[{"name":"intranet_me","description":"who am I","input_schema":{"type":"object"},"http":{"method":"GET","path":"/api/me"}}]`
	for name, body := range map[string]string{plugins.ManifestFile: manifest, plugins.ToolsFile: tools} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	reg, problems := plugins.Load(ctx, plugins.Options{PluginsDir: filepath.Dir(dir), AllowInsecureHTTP: true})
	if len(problems) > 0 {
		t.Fatalf("load plugins: %v", problems)
	}
	e.catalog = reg

	runner, err := projections.NewRunner(e.db.Store, e.db.DB, migrations.SQLite, &projections.Options{Projections: []projections.Projection{connectionsrm.New()}, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	bg, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = runner.Run(bg); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	var h http.Handler
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(e.srv.Close)
	e.conns, err = connections.New(connections.Config{Store: e.db.Store, Vault: vault, Catalog: reg, DB: e.db.DB, Projections: runner,
		PublicURL: e.srv.URL, LinkKey: bytes.Repeat([]byte("l"), 32), Now: e.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	e.replicas, err = replicaauth.New(bytes.Repeat([]byte("r"), 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := browser.Options{Store: e.db.Store, PublicURL: e.srv.URL, LiveKey: bytes.Repeat([]byte("v"), 32),
		ReplicaURL: e.srv.URL, Replicas: e.replicas}
	opts.Pool.Bin, opts.Pool.DataDir, opts.Pool.AllowLoopback, opts.Pool.ReapInterval = bin, t.TempDir(), true, -1
	e.browser, err = browser.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.browser.Close() })
	if err := reg.AddInternal(e.browser.Integration()); err != nil {
		t.Fatal(err)
	}
	e.sess, err = websession.New(bytes.Repeat([]byte("s"), 32), e.srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	browserhttp.Mount(r, browserhttp.Deps{Sessions: e.sess, PublicURL: e.srv.URL, Browser: e.browser,
		Capture: browser.NewCapture(e.browser, e.conns, nil), Keepalive: time.Second,
		Replicas: e.replicas, Holders: e.browser})
	h = r
	return e
}

// client is a user agent signed in to the portal as user (uuid.Nil: signed out) that sends the
// portal's Origin on every request.
type client struct {
	e      *env
	http   *http.Client
	origin string
}

func (e *env) client(user uuid.UUID) *client {
	jar, _ := cookiejar.New(nil)
	if user != uuid.Nil {
		c, err := e.sess.Cookie(user)
		if err != nil {
			e.t.Fatal(err)
		}
		u, _ := url.Parse(e.srv.URL)
		jar.SetCookies(u, []*http.Cookie{c})
	}
	return &client{e: e, http: &http.Client{Jar: jar}, origin: e.srv.URL}
}

// do sends method path (with a JSON body unless nil) and decodes a JSON answer into out (may be nil).
func (c *client) do(method, path string, body any, out any) int {
	c.e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(c.e.ctx, method, c.e.srv.URL+path, rd)
	if err != nil {
		c.e.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			c.e.t.Fatalf("%s %s: %d %s: %v", method, path, resp.StatusCode, raw, err)
		}
	}
	return resp.StatusCode
}

// liveToken asks for a live-view URL and returns its token query (?t=…).
func (c *client) liveQuery(integration string) string {
	c.e.t.Helper()
	var res struct {
		URL string `json:"url"`
	}
	var body any
	if integration != "" {
		body = map[string]string{"integration": integration}
	}
	if st := c.do("POST", "/api/browser-session/live-url", body, &res); st != http.StatusOK {
		c.e.t.Fatalf("live-url: %d", st)
	}
	u, err := url.Parse(res.URL)
	if err != nil || u.Path != browser.LivePath || u.Query().Get("t") == "" {
		c.e.t.Fatalf("live URL %q", res.URL)
	}
	if integration != "" && u.Query().Get("integration") != integration {
		c.e.t.Fatalf("live URL %q does not name %s", res.URL, integration)
	}
	return "?t=" + url.QueryEscape(u.Query().Get("t"))
}

// sse is one open live stream.
type sse struct {
	resp   *http.Response
	events chan event
	cancel context.CancelFunc
}

type event struct {
	name string
	data string
}

// stream opens the live stream and reads its events in the background.
func (c *client) stream(q string) (*sse, int) {
	c.e.t.Helper()
	ctx, cancel := context.WithCancel(c.e.ctx)
	req, _ := http.NewRequestWithContext(ctx, "GET", c.e.srv.URL+"/api/browser-session/live/stream"+q, nil)
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		cancel()
		c.e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		cancel()
		return nil, resp.StatusCode
	}
	s := &sse{resp: resp, events: make(chan event, 1000), cancel: cancel}
	go func() {
		defer close(s.events)
		rd := bufio.NewReader(resp.Body)
		var ev event
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case line == "":
				if ev.name != "" {
					s.events <- ev
				}
				ev = event{}
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	c.e.t.Cleanup(s.close)
	return s, http.StatusOK
}

// openStream opens the live stream, which must answer 200.
func (c *client) openStream(q string) *sse {
	c.e.t.Helper()
	s, st := c.stream(q)
	if st != http.StatusOK {
		c.e.t.Fatalf("stream: %d", st)
	}
	return s
}

// input sends commands to the live view, which must take them.
func (c *client) input(q string, commands ...map[string]any) {
	c.e.t.Helper()
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": commands}, nil); st != http.StatusOK {
		c.e.t.Fatalf("input %v: %d", commands, st)
	}
}

func (s *sse) close() {
	s.cancel()
	s.resp.Body.Close()
}

// loaded waits for a state event saying the page at u has loaded.
func (s *sse) loaded(t *testing.T, u string) {
	t.Helper()
	for {
		var st struct {
			URL     string `json:"url"`
			Loading bool   `json:"loading"`
		}
		if err := json.Unmarshal([]byte(s.next(t, "state").data), &st); err != nil {
			t.Fatal(err)
		}
		if st.URL == u && !st.Loading {
			return
		}
	}
}

// next returns the next event named name, skipping others, within a minute.
func (s *sse) next(t *testing.T, name string) event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended before a %s event", name)
			}
			if ev.name == name {
				return ev
			}
		case <-deadline:
			t.Fatalf("no %s event within a minute", name)
		}
	}
}
