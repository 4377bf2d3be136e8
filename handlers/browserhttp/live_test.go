package browserhttp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/plugins"
)

type frame struct {
	Data   string  `json:"data"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

type liveState struct {
	URL   string `json:"url"`
	Human bool   `json:"human"`
}

// decodeFrame checks a frame event is a JPEG of the viewport.
func decodeFrame(t *testing.T, ev event) frame {
	t.Helper()
	var f frame
	if err := json.Unmarshal([]byte(ev.data), &f); err != nil {
		t.Fatal(err)
	}
	jpeg, err := base64.StdEncoding.DecodeString(f.Data)
	if err != nil || !bytes.HasPrefix(jpeg, []byte{0xff, 0xd8, 0xff}) {
		t.Fatalf("a frame that is not a JPEG (%d bytes, %v)", len(jpeg), err)
	}
	if f.Width < 100 || f.Height < 100 {
		t.Fatalf("frame viewport %vx%v", f.Width, f.Height)
	}
	return f
}

// pageText reads an element's text on the user's current page, as the agent's tools see it.
func (e *env) pageText(user uuid.UUID, sel string) string {
	e.t.Helper()
	s, err := e.browser.Acquire(e.ctx, user)
	if err != nil {
		e.t.Fatal(err)
	}
	defer s.Release()
	ctx, cancel := context.WithTimeout(e.ctx, 20*time.Second)
	defer cancel()
	p, err := s.Page(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	el, err := p.Element(sel)
	if err != nil {
		e.t.Fatalf("%s: %v", sel, err)
	}
	txt, err := el.Text()
	if err != nil {
		e.t.Fatal(err)
	}
	return txt
}

// humanInControl asks the agent's side: a browser tool (browser_read) answers HUMAN_IN_CONTROL while
// the human drives, and reads the page otherwise.
func (e *env) humanInControl(user uuid.UUID) bool {
	e.t.Helper()
	tl, ok := e.catalog.Tool("browser_read")
	if !ok {
		e.t.Fatal("no browser_read")
	}
	args, err := plugins.ValidateArgs(tl, json.RawMessage(`{}`))
	if err != nil {
		e.t.Fatal(err)
	}
	_, err = e.catalog.Execute(e.ctx, tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: user.String()}), args)
	switch {
	case err == nil:
		return false
	case strings.Contains(domain.ErrorMessage(err), "HUMAN_IN_CONTROL"):
		return true
	}
	e.t.Fatalf("browser_read: %v", err)
	return false
}

// controlEvents lists the hand-over and take-back events of the user's browser session stream.
func (e *env) controlEvents(user uuid.UUID) []string {
	e.t.Helper()
	recs, err := e.db.Store.Load(e.ctx, browserdom.StreamName(user), 0)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if r.Type == browserdom.TypeControlHandedOver || r.Type == browserdom.TypeControlTakenBack {
			out = append(out, r.Type)
		}
	}
	return out
}

// The live view streams the user's browser as JPEG frames over SSE, takes a click POSTed up that
// changes the page (and the frames show it), hands control to the human while it is open (the tools
// see HUMAN_IN_CONTROL), gives it back on request and when the stream closes, and records each change.
func TestLiveViewStreamsAndTakesInput(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	c := e.client(user)
	q := c.liveQuery("")

	s := c.openStream(q)
	var state liveState
	if err := json.Unmarshal([]byte(s.next(t, "state").data), &state); err != nil || !state.Human {
		t.Fatalf("first state %+v (%v), want the human in control", state, err)
	}
	decodeFrame(t, s.next(t, "frame"))
	if !e.humanInControl(user) {
		t.Fatal("the tools do not see the human in control while the live view is open")
	}

	var after liveState
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{
		{"type": "navigate", "url": e.site.srv.URL + "/button"},
	}}, &after); st != http.StatusOK || after.URL != e.site.srv.URL+"/button" {
		t.Fatalf("navigate: %d %+v", st, after)
	}
	if got := e.pageText(user, "#out"); got != "not yet" {
		t.Fatalf("before the click: %q", got)
	}
	// Frames keep coming: drain what is queued, then the click must produce a new one.
	for len(s.events) > 0 {
		<-s.events
	}
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{
		{"type": "mousemove", "x": 100, "y": 100}, {"type": "click", "x": 200, "y": 150},
	}}, nil); st != http.StatusOK {
		t.Fatalf("click: %d", st)
	}
	if got := e.pageText(user, "#out"); got != "clicked" {
		t.Fatalf("after the click the page says %q", got)
	}
	decodeFrame(t, s.next(t, "frame"))

	// Giving control back: the stream says so, input is refused, the tools may drive again.
	var ctl struct{ Human bool }
	if st := c.do("POST", "/api/browser-session/live/control"+q, map[string]bool{"human": false}, &ctl); st != http.StatusOK || ctl.Human {
		t.Fatalf("give control back: %d %+v", st, ctl)
	}
	for {
		var st liveState
		if err := json.Unmarshal([]byte(s.next(t, "state").data), &st); err != nil {
			t.Fatal(err)
		}
		if !st.Human {
			break
		}
	}
	if e.humanInControl(user) {
		t.Fatal("the human still holds control after giving it back")
	}
	var refusal struct{ Error string }
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{{"type": "back"}}}, &refusal); st != http.StatusConflict || refusal.Error != "NOT_IN_CONTROL" {
		t.Fatalf("input after giving control back: %d %+v", st, refusal)
	}
	// Taking it again, then closing the stream, gives it back to the agent.
	if st := c.do("POST", "/api/browser-session/live/control"+q, map[string]bool{"human": true}, &ctl); st != http.StatusOK || !ctl.Human {
		t.Fatalf("take control: %d %+v", st, ctl)
	}
	s.close()
	deadline := time.Now().Add(30 * time.Second)
	for e.humanInControl(user) {
		if time.Now().After(deadline) {
			t.Fatal("control did not go back to the agent when the live view closed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := []string{browserdom.TypeControlHandedOver, browserdom.TypeControlTakenBack, browserdom.TypeControlHandedOver, browserdom.TypeControlTakenBack}
	if got := e.controlEvents(user); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("control events %v, want %v", got, want)
	}
}

// The address bar follows the page: the first state names the page's URL (on a browser just started,
// about:blank, even if the page had not committed it when the stream opened), a navigation is
// reported once loaded, and an address changed without loading (history.pushState) is reported too.
func TestLiveViewFollowsTheAddress(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	c := e.client(user)
	q := c.liveQuery("")
	s := c.openStream(q)
	s.loaded(t, "about:blank")

	spa := e.site.srv.URL + "/spa"
	c.input(q, map[string]any{"type": "navigate", "url": spa})
	s.loaded(t, spa)
	c.input(q, map[string]any{"type": "click", "x": 100, "y": 100})
	s.loaded(t, spa+"/inbox#unread")
	// A navigation to an address with a fragment names it whole, as the address bar would.
	c.input(q, map[string]any{"type": "navigate", "url": e.site.srv.URL + "/button#top"})
	s.loaded(t, e.site.srv.URL+"/button#top")
}

// Only the owner, from the portal's origin, with a genuine link reaches the live view; bad input is
// refused before anything runs.
func TestLiveViewRefusals(t *testing.T) {
	e := newEnv(t)
	owner, other := uuid.New(), uuid.New()
	c := e.client(owner)
	q := c.liveQuery("")
	var body struct{ Error string }
	click := map[string]any{"commands": []map[string]any{{"type": "click", "x": 1, "y": 1}}}

	foreign := e.client(owner)
	foreign.origin = "http://evil.example"
	if _, st := foreign.stream(q); st != http.StatusForbidden {
		t.Errorf("stream from another origin: %d, want 403", st)
	}
	if st := foreign.do("POST", "/api/browser-session/live/input"+q, click, &body); st != http.StatusForbidden || body.Error != "CROSS_ORIGIN" {
		t.Errorf("input from another origin: %d %+v, want 403 CROSS_ORIGIN", st, body)
	}
	bare := e.client(owner)
	bare.origin = "" // neither Origin nor Sec-Fetch-Site: not the portal
	if _, st := bare.stream(q); st != http.StatusForbidden {
		t.Errorf("stream without origin: %d, want 403", st)
	}
	if _, st := e.client(other).stream(q); st != http.StatusForbidden {
		t.Errorf("another user's stream: %d, want 403", st)
	}
	if st := e.client(other).do("POST", "/api/browser-session/live/input"+q, click, nil); st != http.StatusForbidden {
		t.Errorf("another user's input: %d, want 403", st)
	}
	if _, st := e.client(uuid.Nil).stream(q); st != http.StatusUnauthorized {
		t.Errorf("signed out: %d, want 401", st)
	}
	if _, st := c.stream("?t=forged"); st != http.StatusBadRequest {
		t.Errorf("forged token: %d, want 400", st)
	}
	for name, cmds := range map[string]any{
		"no commands":   map[string]any{"commands": []any{}},
		"unknown type":  map[string]any{"commands": []map[string]any{{"type": "exec"}}},
		"negative x":    map[string]any{"commands": []map[string]any{{"type": "click", "x": -1, "y": 1}}},
		"file URL":      map[string]any{"commands": []map[string]any{{"type": "navigate", "url": "file:///etc/passwd"}}},
		"unknown key":   map[string]any{"commands": []map[string]any{{"type": "key", "key": "F13"}}},
		"unknown field": map[string]any{"commands": []map[string]any{{"type": "back", "script": "x"}}},
		"too many":      map[string]any{"commands": make([]map[string]any, 101)},
	} {
		if st := c.do("POST", "/api/browser-session/live/input"+q, cmds, &body); st != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", name, st)
		}
	}
	if got := e.controlEvents(owner); len(got) != 0 {
		t.Errorf("refused requests changed control: %v", got)
	}
}

// The agent takes control back while the human drives (browser_live_url, action take_back): the live
// view's state stream says the agent drives, the human's input is refused, the tools work, and the
// change is recorded as BrowserControlTakenBack.
func TestAgentTakesControlBack(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	c := e.client(user)
	q := c.liveQuery("")
	s := c.openStream(q)
	var state liveState
	if err := json.Unmarshal([]byte(s.next(t, "state").data), &state); err != nil || !state.Human {
		t.Fatalf("first state %+v (%v), want the human in control", state, err)
	}
	if !e.humanInControl(user) {
		t.Fatal("the tools do not see the human in control while the live view is open")
	}

	tl, ok := e.catalog.Tool("browser_live_url")
	if !ok {
		t.Fatal("no browser_live_url")
	}
	args, err := plugins.ValidateArgs(tl, json.RawMessage(`{"action":"take_back"}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := e.catalog.Execute(e.ctx, tl, plugins.NewContext(tl.Owner(), plugins.ContextOptions{UserID: user.String()}), args)
	if err != nil {
		t.Fatalf("take back: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil || m["taken_back"] != true {
		t.Fatalf("take back answered %v", out)
	}
	for {
		var st liveState
		if err := json.Unmarshal([]byte(s.next(t, "state").data), &st); err != nil {
			t.Fatal(err)
		}
		if !st.Human {
			break
		}
	}
	var refusal struct{ Error string }
	if st := c.do("POST", "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{{"type": "back"}}}, &refusal); st != http.StatusConflict || refusal.Error != "NOT_IN_CONTROL" {
		t.Fatalf("input after the agent took control back: %d %+v", st, refusal)
	}
	if e.humanInControl(user) {
		t.Fatal("the tools still see the human in control")
	}
	// Closing the live view now records nothing more: the agent already drives.
	s.close()
	want := []string{browserdom.TypeControlHandedOver, browserdom.TypeControlTakenBack}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := e.controlEvents(user)
		if strings.Join(got, ",") == strings.Join(want, ",") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("control events %v, want %v", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
