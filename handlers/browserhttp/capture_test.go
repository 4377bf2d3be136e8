package browserhttp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
)

// callTool runs one of the cookie integration's tools for user as execute_tools does: the connection's
// Access, then the runtime with its injector.
func (e *env) callTool(user uuid.UUID, tool string) error {
	e.t.Helper()
	in, _ := e.catalog.Integration("intranet")
	acc, err := e.conns.Access(e.ctx, user, in, "")
	if err != nil {
		return err
	}
	tl, ok := e.catalog.Tool(tool)
	if !ok {
		e.t.Fatalf("no tool %s", tool)
	}
	args, err := plugins.ValidateArgs(tl, json.RawMessage(`{}`))
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.catalog.Execute(e.ctx, tl, plugins.NewContext(in, plugins.ContextOptions{UserID: user.String(), Injector: acc.Injector}), args)
	return err
}

func (e *env) connected(user uuid.UUID) bool {
	e.t.Helper()
	m, err := e.conns.Connected(e.ctx, user)
	if err != nil {
		e.t.Fatal(err)
	}
	return m["intranet"]
}

// The user signs in to the target service in the live view (typing into its login form), captures,
// and the cookie integration is connected: its tool sends exactly the captured session cookie. When
// the cookie expires (the connections clock moved past it) the integration is NOT_CONNECTED. The
// capture is in the log, the cookie's value nowhere in it.
func TestCaptureFromALiveLogin(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	c := e.client(user)
	started, err := e.conns.Connect(e.ctx, user, "intranet", "")
	if err != nil || started.Type != "cookie" {
		t.Fatalf("connect: %+v %v", started, err)
	}
	q := c.liveQuery("intranet")
	stream := c.openStream(q)
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{
		{"type": "navigate", "url": e.site.srv.URL + "/login"},
		{"type": "click", "x": 100, "y": 50},
		{"type": "text", "text": "ada"},
		{"type": "key", "key": "Enter"},
	}}, nil); st != http.StatusOK {
		t.Fatalf("sign in: %d", st)
	}
	stream.loaded(t, e.site.srv.URL+"/home") // the form was posted, and the page it led to has loaded
	if got := e.pageText(user, "#hello"); got != "Hello, ada" {
		t.Fatalf("after signing in the page says %q", got)
	}
	if e.connected(user) {
		t.Fatal("connected before any capture")
	}

	var res struct {
		Integration string     `json:"integration"`
		Cookies     int        `json:"cookies"`
		ExpiresAt   *time.Time `json:"expires_at"`
	}
	if st := c.do("POST", "/api/browser-session/capture", map[string]string{"integration": "intranet"}, &res); st != http.StatusOK {
		t.Fatalf("capture: %d", st)
	}
	if res.Cookies != 1 || res.ExpiresAt == nil || res.ExpiresAt.Before(time.Now().Add(50*time.Minute)) {
		t.Fatalf("capture answered %+v, want the one session cookie expiring in an hour", res)
	}
	outcome, err := e.conns.WaitForConnection(e.ctx, user, started.ConnectionID, 10*time.Second)
	if err != nil || outcome != "CONNECTED" {
		t.Fatalf("wait_for_connection = %q, %v", outcome, err)
	}
	if !e.connected(user) {
		t.Fatal("not connected after the capture")
	}
	if err := e.callTool(user, "intranet_me"); err != nil {
		t.Fatal(err)
	}
	if got, want := e.site.lastCookie(), "sid=session-of-ada"; got != want {
		t.Fatalf("the tool sent Cookie %q, want %q", got, want)
	}

	all, err := e.db.Store.ReadAll(e.ctx, eventstore.Start, 10000)
	if err != nil {
		t.Fatal(err)
	}
	var captured int
	for _, ev := range all {
		if strings.Contains(string(ev.Data), "session-of-ada") || strings.Contains(string(ev.Data), "sid=") {
			t.Fatalf("the cookie is in the log in clear: %s %s", ev.Type, ev.Data)
		}
		if ev.Type == browserdom.TypeCookiesCaptured {
			var cc browserdom.BrowserCookiesCaptured
			if err := json.Unmarshal(ev.Data, &cc); err != nil {
				t.Fatal(err)
			}
			if cc.UserID != user || cc.Integration != "intranet" || cc.Count != 1 || strings.Join(cc.Domains, ",") != "127.0.0.1" {
				t.Fatalf("capture recorded as %+v", cc)
			}
			captured++
		}
	}
	if captured != 1 {
		t.Fatalf("%d capture events, want 1", captured)
	}

	e.clock.Advance(2 * time.Hour)
	if e.connected(user) {
		t.Fatal("still connected after the session cookie expired")
	}
	if err := e.callTool(user, "intranet_me"); domain.ErrorCode(err) != domain.CodeNotConnected {
		t.Fatalf("a tool call after expiry: %v, want NOT_CONNECTED", err)
	}

	var body struct{ Error string }
	if st := c.do("POST", "/api/browser-session/capture", map[string]string{"integration": "nope"}, &body); st != http.StatusNotFound {
		t.Errorf("capture of an unknown integration: %d %+v, want 404", st, body)
	}
	if st := c.do("POST", "/api/browser-session/capture", map[string]string{}, &body); st != http.StatusBadRequest {
		t.Errorf("capture without an integration: %d, want 400", st)
	}
}

// BROWSER_SESSION_BUSY while a reset is asked for a claimed profile: 409 from reset and live-url, 400
// from capture; once the claim is released the reset runs and the session serves again.
func TestBusyWhileAResetWaits(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	c := e.client(user)
	claim, err := e.browser.Acquire(e.ctx, user) // the agent is using the browser
	if err != nil {
		t.Fatal(err)
	}
	var body struct{ Error string }
	if st := c.do("POST", "/api/browser-session/reset", nil, &body); st != http.StatusConflict || body.Error != "BROWSER_SESSION_BUSY" {
		t.Fatalf("reset of a claimed profile: %d %+v, want 409 BROWSER_SESSION_BUSY", st, body)
	}
	body.Error = ""
	if st := c.do("POST", "/api/browser-session/live-url", nil, &body); st != http.StatusConflict || body.Error != "BROWSER_SESSION_BUSY" {
		t.Fatalf("live-url while the reset waits: %d %+v, want 409 BROWSER_SESSION_BUSY", st, body)
	}
	body.Error = ""
	if st := c.do("POST", "/api/browser-session/capture", map[string]string{"integration": "intranet"}, &body); st != http.StatusBadRequest || body.Error != "BROWSER_SESSION_BUSY" {
		t.Fatalf("capture while the reset waits: %d %+v, want 400 BROWSER_SESSION_BUSY", st, body)
	}
	claim.Release()
	deadline := time.Now().Add(time.Minute)
	for {
		if st := c.do("POST", "/api/browser-session/live-url", nil, nil); st == http.StatusOK {
			break
		} else if st != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("live-url after the claim was released: %d", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	recs, err := e.db.Store.Load(e.ctx, browserdom.StreamName(user), 0)
	if err != nil {
		t.Fatal(err)
	}
	var resets int
	for _, r := range recs {
		if r.Type == browserdom.TypeSessionReset {
			resets++
		}
	}
	if resets != 1 {
		t.Fatalf("%d resets recorded once the claim was released, want 1", resets)
	}
	if st := c.do("POST", "/api/browser-session/reset", nil, nil); st != http.StatusNoContent {
		t.Fatalf("reset of an unclaimed session: %d, want 204", st)
	}
}
