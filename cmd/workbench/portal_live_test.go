package main

// The live browser view in the portal, driven in real headless Chromium (the person's browser) while
// the server runs its own Chromium (the user's browser session): an agent's connect link of a cookie
// integration opens the live view, the person signs in to the target service through the streamed
// frames with real clicks and key presses, captures, and the agent's tool of that integration sends
// the captured cookie; giving control back lets the agent's browser tools run again.

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/workbench/workbench/eventstore"
)

// cookieSite is the target service of the cookie integration, on 127.0.0.1.
type cookieSite struct {
	srv *httptest.Server
	mu  sync.Mutex
	me  []string
}

func newCookieSite(t *testing.T) *cookieSite {
	s := &cookieSite{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Intranet sign-in</title><style>body{margin:0;font-family:sans-serif}
#user{position:absolute;left:0;top:0;width:600px;height:200px;font-size:40px}</style></head>
<body><form method=post action=/login><input id=user name=user placeholder="your name"></form></body></html>`)
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		user := r.PostFormValue("user")
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "session-of-" + user, Path: "/", MaxAge: 3600, HttpOnly: true})
		http.Redirect(w, r, "/home", http.StatusSeeOther)
	})
	mux.HandleFunc("GET /home", func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie("sid")
		name := "nobody"
		if c != nil {
			name = strings.TrimPrefix(c.Value, "session-of-")
		}
		fmt.Fprintf(w, "<!doctype html><title>Intranet</title><h1 id=hello>Hello, %s</h1>", strings.ReplaceAll(name, "<", ""))
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

func writeIntranetPlugin(t *testing.T, dir, base string) {
	t.Helper()
	d := filepath.Join(dir, "intranet")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"name":"intranet","version":"1.0.0","display_name":"Intranet","description":"A test cookie integration.",
		"base_url":%q,"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"]}}}`, base)
	tools := `[{"name":"intranet_me","description":"Who the session belongs to.","input_schema":{"type":"object","properties":{},"additionalProperties":false},
		"http":{"method":"GET","path":"/api/me"}}]`
	for name, body := range map[string]string{"manifest.json": manifest, "tools.json": tools} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLiveViewInThePortal(t *testing.T) {
	t.Parallel()
	human := launchChromium(t)
	bin := os.Getenv("WORKBENCH_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	site := newCookieSite(t)
	plugDir := t.TempDir()
	writeIntranetPlugin(t, plugDir, site.srv.URL)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "WORKBENCH_CHROMIUM": bin,
	}, slog.LevelInfo)
	tb := openTab(t, human, srv.Base)
	tb.open(strings.TrimPrefix(startupSignInLink(t, srv), srv.Base))
	tb.waitURL(`^/$`)
	admin := srv.user(t, "admin@workbench.localhost") // the account the sign-in link signed in, with an API key
	e := &mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}
	cs, _ := e.connectSDK(t, admin.Key)
	defer cs.Close()

	var started struct {
		URL  string `json:"url"`
		Type string `json:"type"`
	}
	call(t, cs, "connect", map[string]any{"integration": "intranet"}, &started)
	if started.Type != "cookie" || !strings.HasPrefix(started.URL, srv.Base+"/connect/") {
		t.Fatalf("connect answered %+v", started)
	}

	// The link opens the live view of the user's browser, with "Capture now" for the integration.
	tb.open(strings.TrimPrefix(started.URL, srv.Base))
	tb.waitURL(`^/portal/browser/live\?t=[^&]+&integration=intranet$`)
	tb.el(`[data-testid=live-capture]`, "Capture now")
	tb.el(`img[data-frames]`, "") // a frame arrived over the stream
	tb.shot("live-blank")

	// Sign in to the service through the live view: URL bar, a click on the streamed form, keys.
	bar := tb.el(`[data-testid=live-url]`, "")
	if err := bar.SelectAllText(); err != nil {
		t.Fatal(err)
	}
	if err := bar.Input(site.srv.URL + "/login"); err != nil {
		t.Fatal(err)
	}
	tb.click(`[data-testid=live-go]`, "")
	deadline := time.Now().Add(30 * time.Second)
	// Wait until the login page has loaded in the session (the stream's state says so), as a person
	// waits for the form to show before clicking it.
	for tb.value(`[data-testid=live-url][data-loading=false]`) != site.srv.URL+"/login" {
		if time.Now().After(deadline) {
			t.Fatalf("the URL bar says %q", tb.value(`[data-testid=live-url]`))
		}
		time.Sleep(50 * time.Millisecond)
	}
	screen := tb.el(`[data-testid=live-screen]`, "")
	shape, err := screen.Shape()
	if err != nil {
		t.Fatal(err)
	}
	box := shape.Box()
	natural, err := screen.Eval(`function () { return [this.naturalWidth, this.naturalHeight] }`)
	if err != nil {
		t.Fatal(err)
	}
	w, h := natural.Value.Arr()[0].Num(), natural.Value.Arr()[1].Num()
	// (300, 100) in the session's viewport is inside the login field; the frame is drawn scaled to fit
	// the screen element, centred.
	scale := min(box.Width/w, box.Height/h)
	x := box.X + (box.Width-w*scale)/2 + 300*scale
	y := box.Y + (box.Height-h*scale)/2 + 100*scale
	if err := tb.page().Mouse.MoveTo(proto.Point{X: x, Y: y}); err != nil {
		t.Fatal(err)
	}
	if err := tb.page().Mouse.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if err := tb.page().Keyboard.Type(input.KeyA, input.KeyD, input.KeyA, input.Enter); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(30 * time.Second)
	for tb.value(`[data-testid=live-url]`) != site.srv.URL+"/home" {
		if time.Now().After(deadline) {
			tb.shot("live-login-failed")
			t.Fatalf("the login did not happen: the URL bar says %q", tb.value(`[data-testid=live-url]`))
		}
		time.Sleep(50 * time.Millisecond)
	}
	tb.shot("live-signed-in")

	// Before the capture the agent's tools are told to connect; after it they carry the cookie.
	var before execResults
	call(t, cs, "execute_tools", map[string]any{"executions": []any{ex("intranet_me", nil)}}, &before)
	if !strings.Contains(string(before.Results[0]["error"]), "NOT_CONNECTED") && !strings.Contains(string(before.Results[0]["error"]), "not_connected") {
		t.Fatalf("intranet_me before the capture: %s", before.Results[0])
	}
	tb.click(`[data-testid=live-capture]`, "")
	tb.el(`.notice-success`, `intranet is connected`)
	tb.shot("live-captured")
	var after execResults
	call(t, cs, "execute_tools", map[string]any{"executions": []any{ex("intranet_me", nil)}}, &after)
	if _, ok := after.Results[0]["result"]; !ok {
		t.Fatalf("intranet_me after the capture: %s", after.Results[0])
	}
	site.mu.Lock()
	last := site.me[len(site.me)-1]
	site.mu.Unlock()
	if last != "sid=session-of-ada" {
		t.Fatalf("the tool sent Cookie %q, want sid=session-of-ada", last)
	}

	// While the person drives, the agent's browser tools wait; giving control back frees them.
	var read execResults
	call(t, cs, "execute_tools", map[string]any{"executions": []any{ex("browser_read", nil)}}, &read)
	if !strings.Contains(string(read.Results[0]["error"]), "HUMAN_IN_CONTROL") {
		t.Fatalf("browser_read while the person drives: %s", read.Results[0])
	}
	tb.click(`[data-testid=live-control]`, "Give control back")
	tb.el(`[data-testid=live-control]`, "Take control")
	call(t, cs, "execute_tools", map[string]any{"executions": []any{ex("browser_read", nil)}}, &read)
	if _, ok := read.Results[0]["result"]; !ok {
		t.Fatalf("browser_read after control was given back: %s", read.Results[0])
	}
	var got struct {
		Result struct {
			Text string `json:"text"`
		} `json:"result"`
	}
	if b, _ := json.Marshal(read.Results[0]); json.Unmarshal(b, &got) != nil || !strings.Contains(got.Result.Text, "Hello, ada") {
		t.Fatalf("the agent reads %s, want the page the person signed in to", b)
	}
	if n := len(srv.events(t, "browser.cookies_captured")); n != 1 {
		t.Fatalf("%d captures recorded, want 1", n)
	}

	// Reset from the live view: the view itself holds the browser, so the reset waits for it (BUSY);
	// the page lets go, the profile is wiped, and the view comes back on a fresh, empty browser. The
	// captured bundle is the connection's and stays.
	tb.click(`[data-testid=live-reset]`, "")
	tb.click(`[data-testid=dialog-confirm]`, "")
	tb.el(`.notice`, `Resetting the browser|The browser was reset`)
	srv.eventsUntil(t, "browser.session_reset", func(evs []eventstore.Envelope) bool { return len(evs) == 1 })
	deadline = time.Now().Add(time.Minute)
	for tb.value(`[data-testid=live-url]`) != "about:blank" {
		if time.Now().After(deadline) {
			t.Fatalf("after the reset the view shows %q, want a fresh about:blank", tb.value(`[data-testid=live-url]`))
		}
		time.Sleep(100 * time.Millisecond)
	}
	call(t, cs, "execute_tools", map[string]any{"executions": []any{ex("intranet_me", nil)}}, &after)
	if _, ok := after.Results[0]["result"]; !ok {
		t.Fatalf("intranet_me after the reset: %s", after.Results[0])
	}
}
