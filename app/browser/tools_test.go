package browser_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/plugins"
)

func chromium(t testing.TB) string { return testenv.ChromiumBin(t) }

const home = `<!doctype html><html><head><title>Home</title></head><body>
<h1>Welcome</h1>
<a id="go" href="/form">Go to form</a>
<button id="btn" onclick="document.getElementById('out').textContent='clicked'">Press</button>
<p id="out">not yet</p>
<script>setTimeout(() => { const p = document.createElement('p'); p.id = 'late'; p.textContent = 'ready now'; document.body.appendChild(p) }, 200)</script>
</body></html>`

const form = `<!doctype html><html><head><title>Form</title></head><body>
<form action="/hello"><label for="name">Name</label><input id="name" name="name" value="old"></form>
</body></html>`

func site(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, home) })
	mux.HandleFunc("/form", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, form) })
	mux.HandleFunc("/hello", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "<html><head><title>Hello</title></head><body><p id=greet>Hello, %s</p></body></html>", strings.ReplaceAll(r.URL.Query().Get("name"), "<", ""))
	})
	mux.HandleFunc("/to-metadata", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

type env struct {
	t     testing.TB
	svc   *browser.Service
	store eventstore.Store
	reg   *plugins.Registry
}

func newEnv(t testing.TB, o browser.Options) *env {
	t.Helper()
	db := testenv.OpenSQLite(t)
	o.Store = db.Store
	o.Pool.Bin = chromium(t)
	o.Pool.DataDir = t.TempDir()
	o.Pool.AllowLoopback = true
	o.Pool.ReapInterval = -1
	o.PublicURL = "https://workbench.example.test"
	o.LiveKey = bytes.Repeat([]byte("k"), 32)
	svc, err := browser.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	reg, _ := plugins.Load(context.Background(), plugins.Options{})
	if err := reg.AddInternal(svc.Integration()); err != nil {
		t.Fatal(err)
	}
	return &env{t: t, svc: svc, store: db.Store, reg: reg}
}

// call runs a tool the way execute_tools does: schema validation, then the handler through the registry.
func (e *env) call(user uuid.UUID, tool, args string) (map[string]any, error) {
	e.t.Helper()
	tl, ok := e.reg.Tool(tool)
	if !ok {
		e.t.Fatalf("no tool %s", tool)
	}
	valid, err := plugins.ValidateArgs(tl, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	raw, err := e.reg.Execute(context.Background(), tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: user.String()}), valid)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatalf("%s answered %s: %v", tool, raw, err)
	}
	out["_raw"] = string(raw)
	return out, nil
}

func (e *env) must(user uuid.UUID, tool, args string) map[string]any {
	e.t.Helper()
	out, err := e.call(user, tool, args)
	if err != nil {
		e.t.Fatalf("%s %s: %v", tool, args, err)
	}
	return out
}

// fails runs a tool expecting a failure whose message holds every one of want.
func (e *env) fails(user uuid.UUID, tool, args string, want ...string) {
	e.t.Helper()
	out, err := e.call(user, tool, args)
	if err == nil {
		e.t.Fatalf("%s %s succeeded: %v", tool, args, out)
	}
	msg := domain.ErrorMessage(err)
	for _, w := range want {
		if !strings.Contains(msg, w) {
			e.t.Errorf("%s %s: %q does not say %q", tool, args, msg, w)
		}
	}
}

func (e *env) types(user uuid.UUID) []string {
	e.t.Helper()
	evs, err := e.store.Load(context.Background(), browserdom.StreamName(user), 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

var refRE = func(role, name string) *regexp.Regexp {
	return regexp.MustCompile(regexp.QuoteMeta(role+" "+fmt.Sprintf("%q", name)) + ` \[ref=(e\d+)\]`)
}

// TestTools runs the nine tools against pages served on 127.0.0.1, in one Chromium.
func TestTools(t *testing.T) {
	e := newEnv(t, browser.Options{AllowEvaluate: true})
	srv := site(t)
	user := uuid.New()

	out := e.must(user, "browser_navigate", fmt.Sprintf(`{"url":%q}`, srv.URL+"/"))
	if out["title"] != "Home" || out["url"] != srv.URL+"/" {
		t.Fatalf("navigate: %v", out)
	}

	// read: text and a snapshot whose refs the other tools accept, stable across reads.
	out = e.must(user, "browser_read", `{}`)
	if !strings.Contains(out["text"].(string), "Welcome") {
		t.Fatalf("read text: %v", out["text"])
	}
	snap := out["snapshot"].(string)
	m := refRE("button", "Press").FindStringSubmatch(snap)
	if m == nil || !strings.Contains(snap, `heading "Welcome"`) || !refRE("link", "Go to form").MatchString(snap) {
		t.Fatalf("snapshot:\n%s", snap)
	}
	ref := m[1]
	again := e.must(user, "browser_read", `{}`)["snapshot"].(string)
	if m2 := refRE("button", "Press").FindStringSubmatch(again); m2 == nil || m2[1] != ref {
		t.Fatalf("the button's ref changed between reads: %s, then\n%s", ref, again)
	}
	e.must(user, "browser_click", fmt.Sprintf(`{"ref":%q}`, ref))
	if got := e.must(user, "browser_read", `{"selector":"#out"}`)["text"]; got != "clicked" {
		t.Fatalf("after clicking %s: %q", ref, got)
	}

	// wait: for a text and for a selector that appear later.
	e.must(user, "browser_wait", `{"text":"ready now"}`)
	e.must(user, "browser_wait", `{"selector":"#late"}`)

	// Clear errors: not found names the selector; a timeout names the limit.
	e.fails(user, "browser_click", `{"selector":"#missing","timeout_ms":400}`, `"#missing"`, "400ms")
	e.fails(user, "browser_wait", `{"text":"never there","timeout_ms":300}`, `"never there"`, "300ms")
	e.fails(user, "browser_click", `{"ref":"e999999"}`, "e999999")
	e.fails(user, "browser_click", `{"selector":"##"}`, `"##"`)

	// click a link, type into a form and submit, go back.
	if out = e.must(user, "browser_click", `{"selector":"#go"}`); !strings.HasSuffix(out["url"].(string), "/form") || out["clicked"] != "#go" {
		t.Fatalf("click #go: %v", out)
	}
	e.must(user, "browser_wait", `{"selector":"#name"}`)
	if out = e.must(user, "browser_type", `{"selector":"#name","text":"Ada","clear":true,"submit":true}`); out["typed_chars"] != float64(3) || out["into"] != "#name" {
		t.Fatalf("type: %v", out)
	}
	e.must(user, "browser_wait", `{"text":"Hello, Ada"}`)
	if out = e.must(user, "browser_back", `{}`); !strings.HasSuffix(out["url"].(string), "/form") {
		t.Fatalf("back: %v", out)
	}

	// screenshot: a PNG, answered as image content by execute_tools.
	out = e.must(user, "browser_screenshot", `{}`)
	rest, im, ok := plugins.ExtractImage(json.RawMessage(out["_raw"].(string)))
	if !ok || im.MIMEType != "image/png" || strings.Contains(string(rest), im.Data) {
		t.Fatalf("screenshot: %v", out)
	}
	png, err := base64.StdEncoding.DecodeString(im.Data)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("not a PNG: %v", err)
	}

	// evaluate (turned on for this service).
	if out = e.must(user, "browser_evaluate", `{"expression":"Promise.resolve(document.title + ':' + (1+2))"}`); out["value"] != "Form:3" {
		t.Fatalf("evaluate: %v", out)
	}
	e.fails(user, "browser_evaluate", `{"expression":"(() => { throw new Error('boom') })()"}`, "boom")

	// live URL: signed, into the portal, for this user.
	out = e.must(user, "browser_live_url", `{}`)
	u := out["url"].(string)
	prefix := "https://workbench.example.test/portal/browser/live?t="
	if !strings.HasPrefix(u, prefix) {
		t.Fatalf("live url %q", u)
	}
	if got, err := e.svc.OpenLiveToken(strings.TrimPrefix(u, prefix)); err != nil || got != user {
		t.Fatalf("live token opens to %v, %v", got, err)
	}
	if _, err := e.svc.OpenLiveToken(strings.TrimPrefix(u, prefix) + "x"); err == nil {
		t.Fatal("an altered live token opened")
	}

	// Hand-over: the tools answer HUMAN_IN_CONTROL until control is taken back.
	sess, err := e.svc.Acquire(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: user.String()}
	if err := e.svc.HandOver(context.Background(), sess, md); err != nil {
		t.Fatal(err)
	}
	e.fails(user, "browser_read", `{}`, "HUMAN_IN_CONTROL")
	sess.Release()
	// The agent takes control back itself (browser_live_url, action take_back).
	e.fails(user, "browser_live_url", `{"action":"grab"}`, "take_back")
	if out = e.must(user, "browser_live_url", `{"action":"take_back"}`); out["taken_back"] != true || out["human_in_control"] != false {
		t.Fatalf("take back: %v", out)
	}
	e.must(user, "browser_read", `{}`)
	// Taking back when the agent already drives records nothing more.
	if out = e.must(user, "browser_live_url", `{"action":"take_back"}`); out["taken_back"] != false {
		t.Fatalf("second take back: %v", out)
	}

	// Containment: only http(s), only public addresses (loopback allowed here by the test setting).
	e.fails(user, "browser_navigate", `{"url":"http://169.254.169.254/latest/meta-data/"}`, "refused", "169.254.169.254")
	e.fails(user, "browser_navigate", fmt.Sprintf(`{"url":%q}`, srv.URL+"/to-metadata"), "refused", "169.254.169.254")
	e.fails(user, "browser_navigate", `{"url":"file:///etc/passwd"}`, "http")
	e.fails(user, "browser_navigate", `{"url":"chrome://version"}`, "http")
	e.fails(user, "browser_navigate", `{"url":"http://[64:ff9b::a9fe:a9fe]/"}`, "refused")

	if err := e.svc.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{browserdom.TypeSessionStarted, browserdom.TypeControlHandedOver, browserdom.TypeControlTakenBack, browserdom.TypeSessionStopped}
	if got := e.types(user); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", got, want)
	}
}

// TestEvaluateOff: browser_evaluate answers that it is off unless the operator turned it on, and the
// BUSY answer of a reset while the session is claimed is BROWSER_SESSION_BUSY.
func TestEvaluateOffAndBusy(t *testing.T) {
	e := newEnv(t, browser.Options{})
	user := uuid.New()
	e.fails(user, "browser_evaluate", `{"expression":"1"}`, "BROWSER_ALLOW_EVALUATE")
	if len(e.svc.Pool().PIDs()) != 0 {
		t.Fatal("a refused evaluate started a browser")
	}
	sess, err := e.svc.Acquire(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	err = e.svc.Reset(context.Background(), user)
	if domain.ErrorCode(err) != domain.CodeConflict || !strings.Contains(domain.ErrorMessage(err), "BROWSER_SESSION_BUSY") {
		t.Fatalf("reset while claimed: %v", err)
	}
	e.fails(user, "browser_read", `{}`, "BROWSER_SESSION_BUSY")
	sess.Release()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := e.types(user)
		if len(got) == 2 && got[1] == browserdom.TypeSessionReset {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events %v, want started then reset", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type progressLog []string

func (p *progressLog) Progress(progress, total float64, message string) {
	*p = append(*p, fmt.Sprintf("%g/%g %s", progress, total, message))
}

// browser_navigate reports its two waits as progress to a call that asked for it.
func TestNavigateReportsProgress(t *testing.T) {
	e := newEnv(t, browser.Options{})
	srv := site(t)
	user := uuid.New()
	tl, _ := e.reg.Tool("browser_navigate")
	valid, err := plugins.ValidateArgs(tl, json.RawMessage(fmt.Sprintf(`{"url":%q}`, srv.URL+"/")))
	if err != nil {
		t.Fatal(err)
	}
	var got progressLog
	ctx := mcppeer.Execution(mcppeer.WithSink(context.Background(), &got), 0, 1)
	if _, err := e.reg.Execute(ctx, tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: user.String()}), valid); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	want := []string{"1/2 execution 0: opening " + host, "2/2 execution 0: " + host + " answered; waiting for the page to load"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
}
