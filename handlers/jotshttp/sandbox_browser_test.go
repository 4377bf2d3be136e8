package jotshttp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/workbench/workbench/app/jots"
	"github.com/workbench/workbench/app/jots/jotstest"
	"github.com/workbench/workbench/handlers/jotshttp"
	"github.com/workbench/workbench/internal/testenv"
)

// The app's secrets the hostile jot goes after.
const (
	appCookieValue = "app-session-secret"
	appStorage     = "app-local-secret"
	apiSecret      = "api-answer-secret"
)

// appPage is a page of "the app": it sets a session cookie readable by same-origin script (not
// HttpOnly, so a leak would show) and a localStorage value, and records what it can read itself. It
// is the control: the same probes succeed here, so the test can tell a leak from a broken probe.
const appPage = `<!doctype html><html><body><pre id="out"></pre><script>
localStorage.setItem('wb_token', '` + appStorage + `');
document.getElementById('out').textContent = JSON.stringify({cookie: document.cookie, localStorage: localStorage.getItem('wb_token')});
document.body.dataset.done = '1';
</script></body></html>`

// hostileJot tries everything a jot must not be able to do and writes each outcome into its own DOM.
const hostileJot = `<!doctype html><html><body><pre id="out"></pre><script>
const out = {};
const rec = (k, v) => { out[k] = v; document.getElementById('out').textContent = JSON.stringify(out); };
try { rec('origin', String(self.origin)); } catch (e) { rec('origin', 'error:' + e.name); }
try { rec('cookie', 'read:' + document.cookie); } catch (e) { rec('cookie', 'blocked:' + e.name); }
try { rec('localStorage', 'read:' + localStorage.getItem('wb_token')); } catch (e) { rec('localStorage', 'blocked:' + e.name); }
try { rec('sessionStorage', 'read:' + sessionStorage.length); } catch (e) { rec('sessionStorage', 'blocked:' + e.name); }
const probe = (k, p) => p.then(r => r.text()).then(t => rec(k, 'read:' + t), e => rec(k, 'blocked:' + e.name));
Promise.allSettled([
  probe('api', fetch('/api/whoami', {credentials: 'include'})),
  probe('api_no_cors', fetch('/api/whoami', {credentials: 'include', mode: 'no-cors'})),
  probe('mcp', fetch('/mcp', {method: 'POST', credentials: 'include', headers: {'Content-Type': 'application/json'},
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'})),
  probe('mcp_simple', fetch('/mcp', {method: 'POST', credentials: 'include', headers: {'Content-Type': 'text/plain'}, body: 'x'})),
  probe('own_file', fetch('data.json')),
  new Promise(res => { const x = new XMLHttpRequest(); x.open('GET', '/api/whoami'); x.withCredentials = true;
    x.onload = () => { rec('xhr', 'read:' + x.responseText); res(); }; x.onerror = () => { rec('xhr', 'blocked:error'); res(); }; x.send(); }),
]).then(() => { document.body.dataset.done = '1'; });
</script></body></html>`

// appServer records the cookies that reached the app's API and MCP endpoints.
type appServer struct {
	mu   sync.Mutex
	seen []string
}

func (a *appServer) routes(r chi.Router) {
	r.Get("/app", func(w http.ResponseWriter, _ *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "wb_session", Value: appCookieValue, Path: "/", SameSite: http.SameSiteLaxMode})
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(appPage))
	})
	answer := func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		if c, err := r.Cookie("wb_session"); err == nil {
			a.seen = append(a.seen, r.Method+" "+r.URL.Path+" origin="+r.Header.Get("Origin")+" cookie="+c.Value)
		}
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"secret":"` + apiSecret + `"}`))
	}
	r.Get("/api/whoami", answer)
	r.Post("/mcp", answer)
}

func launch(t *testing.T) *rod.Browser {
	t.Helper()
	b := testenv.LaunchChromium(t)
	// Keep one page open throughout: closing a browser's last page may drop its session cookies,
	// and the app's cookie must be there when the jot goes looking for it.
	if _, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"}); err != nil {
		t.Fatal(err)
	}
	return b
}

// visit opens url in a fresh page and returns what the page wrote into #out once body[data-done] is set.
func visit(t *testing.T, b *rod.Browser, url string) map[string]string {
	t.Helper()
	page, err := b.Page(rodTarget(url))
	if err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	defer page.Close()
	p := page.Timeout(30 * time.Second)
	if _, err := p.Element("body[data-done]"); err != nil {
		t.Fatalf("%s never finished: %v", url, err)
	}
	el, err := p.Element("#out")
	if err != nil {
		t.Fatal(err)
	}
	text, err := el.Text()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatalf("%s wrote %q: %v", url, text, err)
	}
	return out
}

// Proves the sandbox in a real browser: a hostile jot served from the same origin as the app cannot
// read the app's cookie or localStorage, and cannot read anything from /api or /mcp.
func TestSandboxInChromium(t *testing.T) {
	b := launch(t)
	app := &appServer{}
	h := newHost(t, jots.Options{}, jotshttp.Options{}, app.routes)
	h.deploy(t, "hostile", jots.SettingsInput{}, jotstest.File{Path: "index.html", Body: hostileJot}, jotstest.File{Path: "data.json", Body: `{"own":"data"}`})
	yes := true
	h.deploy(t, "hostile-cors", jots.SettingsInput{CORS: &yes}, jotstest.File{Path: "index.html", Body: hostileJot}, jotstest.File{Path: "data.json", Body: `{"own":"data"}`})

	// The control: the app's own page, same origin, not sandboxed, reads both secrets.
	control := visit(t, b, h.srv.URL+"/app")
	cookies, err := b.GetCookies()
	if err != nil {
		t.Fatal(err)
	}
	held := false
	for _, c := range cookies {
		held = held || c.Name == "wb_session" && c.Value == appCookieValue && c.Path == "/"
	}
	if !held {
		t.Fatalf("the browser does not hold the app's cookie (%v): the test would prove nothing", cookies)
	}
	if !strings.Contains(control["cookie"], appCookieValue) || control["localStorage"] != appStorage {
		t.Fatalf("the control page could not read its own cookie and storage (%v): the probes are broken", control)
	}

	for _, tc := range []struct {
		jot     string
		ownFile string // what fetching its own data.json gives
	}{
		{"hostile", "blocked:TypeError"},
		{"hostile-cors", `read:{"own":"data"}`}, // cors: true lets a jot read its own files, nothing more
	} {
		t.Run(tc.jot, func(t *testing.T) {
			got := visit(t, b, h.srv.URL+"/j/"+tc.jot+"/")
			t.Logf("outcomes: %v", got)
			want := map[string]string{
				"origin":         "null",
				"cookie":         "blocked:SecurityError",
				"localStorage":   "blocked:SecurityError",
				"sessionStorage": "blocked:SecurityError",
				"api":            "blocked:TypeError",
				"api_no_cors":    "read:", // an opaque response: empty to the script
				"mcp":            "blocked:TypeError",
				"mcp_simple":     "blocked:TypeError",
				"xhr":            "blocked:error",
				"own_file":       tc.ownFile,
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: got %q, want %q", k, got[k], w)
				}
			}
			for k, v := range got {
				if strings.Contains(v, appCookieValue) || strings.Contains(v, appStorage) || strings.Contains(v, apiSecret) {
					t.Errorf("%s leaked a secret: %q", k, v)
				}
			}
		})
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	if len(app.seen) > 0 {
		t.Errorf("requests from the jots reached the app with its session cookie: %v", app.seen)
	}
}

func rodTarget(url string) proto.TargetCreateTarget { return proto.TargetCreateTarget{URL: url} }

// A password-gated jot works in a real browser: the form, the cookie scoped to the jot, and the
// jot's own subresources loading with it from inside the sandbox.
func TestPasswordGateInChromium(t *testing.T) {
	b := launch(t)
	h := newHost(t, jots.Options{}, jotshttp.Options{}, nil)
	pw := "correct horse"
	h.deploy(t, "gated", jots.SettingsInput{Password: &pw},
		jotstest.File{Path: "index.html", Body: `<!doctype html><html><body><pre id="out"></pre><script src="app.js"></script></body></html>`},
		jotstest.File{Path: "app.js", Body: `document.getElementById('out').textContent = JSON.stringify({script: 'ran'}); document.body.dataset.done = '1';`},
	)
	page, err := b.Page(proto.TargetCreateTarget{URL: h.srv.URL + "/j/gated/"})
	if err != nil {
		t.Fatal(err)
	}
	defer page.Close()
	p := page.Timeout(30 * time.Second)
	input, err := p.Element("#password")
	if err != nil {
		t.Fatalf("no password form: %v", err)
	}
	if err := input.Input(pw); err != nil {
		t.Fatal(err)
	}
	btn, err := p.Element("button[type=submit]")
	if err != nil {
		t.Fatal(err)
	}
	if err := btn.Click(proto.InputMouseButtonLeft, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Element("body[data-done]"); err != nil {
		html, _ := page.HTML()
		cs, _ := b.GetCookies()
		for _, c := range cs {
			t.Logf("cookie %s path=%s samesite=%s secure=%v", c.Name, c.Path, c.SameSite, c.Secure)
		}
		t.Fatalf("the jot's script never ran after the password was accepted: %v\n%s", err, html)
	}
	el, err := p.Element("#out")
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := el.Text(); text != `{"script":"ran"}` {
		t.Errorf("out %q", text)
	}
	cookies, err := b.GetCookies()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cookies {
		if c.Name == "jot_access" && (c.Path != "/j/gated/" || !c.HTTPOnly) {
			t.Errorf("jot cookie %+v", c)
		}
	}
}
