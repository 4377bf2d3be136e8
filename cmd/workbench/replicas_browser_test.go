package main

// A user's browser session is pinned to the replica whose Chromium holds it: three replicas as
// processes (the built binary, one PostgreSQL database, NATS), with real Chromium. A browser tool call
// through B drives the session a call through A started; the live view opened on B streams A's
// browser and its input reaches it; once A stops, B starts the session itself (and C forwards to B);
// once B is killed, C finds it unreachable and starts the session itself.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/internal/testenv"
)

// chromiumOrSkip is WORKBENCH_CHROMIUM (or /usr/bin/chromium); missing, the test is skipped, and
// fails under CI=true.
func chromiumOrSkip(t *testing.T) string { return testenv.ChromiumBin(t) }

// browserCall runs one browser tool through cs: its result, or the error execute_tools answered.
func browserCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) (json.RawMessage, string) {
	t.Helper()
	res := execute(t, cs, ex(tool, args))
	if e, ok := res.Results[0]["error"]; ok {
		var msg string
		if json.Unmarshal(e, &msg) != nil {
			msg = string(e)
		}
		return nil, msg
	}
	return res.Results[0]["result"], ""
}

func mustBrowserCall(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) map[string]any {
	t.Helper()
	raw, errText := browserCall(t, cs, tool, args)
	if errText != "" {
		t.Fatalf("%s: %s", tool, errText)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %s (%v)", tool, raw, err)
	}
	return out
}

// sessionStarts lists the replicas recorded in the user's BrowserSessionStarted events.
func sessionStarts(t *testing.T, c *cluster, user uuid.UUID) []string {
	t.Helper()
	recs, err := c.admin.Store.Load(context.Background(), browserdom.StreamName(user), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		if r.Type == browserdom.TypeSessionStarted {
			var ev browserdom.BrowserSessionStarted
			if err := json.Unmarshal(r.Data, &ev); err != nil {
				t.Fatal(err)
			}
			out = append(out, ev.Replica)
		}
	}
	return out
}

func TestBrowserSessionPinnedToItsReplica(t *testing.T) {
	t.Parallel()
	bin := chromiumOrSkip(t)
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Counter</title></head><body>
<button id="inc" style="position:absolute;left:0;top:0;width:400px;height:300px" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">add one</button>
<p style="position:absolute;top:320px">count <span id="n">0</span></p></body></html>`)
	}))
	defer page.Close()
	counter := page.URL + "/counter"

	c := newCluster(t, 3, map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "WORKBENCH_CHROMIUM": bin})
	ada := c.user("ada@example.com")
	// Each replica keeps its browser profiles in a directory of its own, as on separate machines.
	for _, r := range c.replicas {
		c.env["WORKBENCH_DATA_DIR"] = t.TempDir()
		c.startReady(r)
	}
	a, b, cr := c.replicas[0], c.replicas[1], c.replicas[2]
	csA, _ := c.mcp(0).connectSDK(t, ada.Key)
	defer csA.Close()
	csB, _ := c.mcp(1).connectSDK(t, ada.Key)
	defer csB.Close()
	csC, _ := c.mcp(2).connectSDK(t, ada.Key)
	defer csC.Close()

	// Started through A; driven through B: the same page, the same state.
	mustBrowserCall(t, csA, "browser_navigate", map[string]any{"url": counter})
	if got := sessionStarts(t, c, ada.ID); len(got) != 1 || got[0] != a.base {
		t.Fatalf("session starts %v, want one on A (%s)", got, a.base)
	}
	read := mustBrowserCall(t, csB, "browser_read", nil)
	if read["url"] != counter || read["title"] != "Counter" {
		t.Fatalf("browser_read through B: %v", read)
	}
	mustBrowserCall(t, csB, "browser_click", map[string]any{"selector": "#inc"})
	mustBrowserCall(t, csB, "browser_click", map[string]any{"selector": "#inc"})
	if read = mustBrowserCall(t, csA, "browser_read", map[string]any{"selector": "#n"}); read["text"] != "2" {
		t.Fatalf("after two clicks through B, A reads %v", read)
	}
	// A screenshot through B comes back as image content.
	res, err := csB.CallTool(context.Background(), &sdk.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{ex("browser_screenshot", nil)}}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("screenshot through B: %v %+v", err, res)
	}
	if img, ok := res.Content[1].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" {
		t.Fatalf("screenshot through B: %T", res.Content[1])
	}
	if got := sessionStarts(t, c, ada.ID); len(got) != 1 {
		t.Fatalf("session starts %v after the calls through B, want A's only", got)
	}

	// The live view opened on B streams A's browser; a click posted to B reaches it.
	portal := c.browser(ada)
	post := func(base, path string, body any, out any) int {
		t.Helper()
		var rd io.Reader
		if body != nil {
			raw, _ := json.Marshal(body)
			rd = strings.NewReader(string(raw))
		}
		req, _ := http.NewRequest(http.MethodPost, base+path, rd)
		req.Header.Set("Origin", c.public)
		req.Header.Set("Content-Type", "application/json")
		resp, err := portal.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if out != nil {
			json.NewDecoder(resp.Body).Decode(out) //nolint:errcheck // the status says what went wrong
		}
		return resp.StatusCode
	}
	var minted struct{ URL string }
	if st := post(b.base, "/api/browser-session/live-url", nil, &minted); st != http.StatusOK || minted.URL == "" {
		t.Fatalf("live-url on B: %d %+v", st, minted)
	}
	tok := minted.URL[strings.Index(minted.URL, "?t=")+3:]
	q := "?t=" + tok
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.base+"/api/browser-session/live/stream"+q, nil)
	req.Header.Set("Origin", c.public)
	resp, err := portal.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("live stream on B: %d %s", resp.StatusCode, b)
	}
	events := make(chan [2]string, 1000)
	go func() {
		defer close(events)
		rd := bufio.NewReader(resp.Body)
		var name string
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				events <- [2]string{name, strings.TrimPrefix(line, "data: ")}
			}
		}
	}()
	next := func(name string) string {
		t.Helper()
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("the stream on B ended before a %s event", name)
				}
				if ev[0] == name {
					return ev[1]
				}
			case <-ctx.Done():
				t.Fatalf("no %s event on B's stream", name)
			}
		}
	}
	var state struct {
		URL   string `json:"url"`
		Human bool   `json:"human"`
	}
	if err := json.Unmarshal([]byte(next("state")), &state); err != nil || state.URL != counter || !state.Human {
		t.Fatalf("first state on B %+v (%v), want A's page with the human in control", state, err)
	}
	next("frame")
	if _, errText := browserCall(t, csA, "browser_read", nil); !strings.Contains(errText, "HUMAN_IN_CONTROL") {
		t.Fatalf("browser_read on A while the live view on B is open: %q", errText)
	}
	if st := post(b.base, "/api/browser-session/live/input"+q, map[string]any{"commands": []map[string]any{
		{"type": "click", "x": 100, "y": 100},
	}}, nil); st != http.StatusOK {
		t.Fatalf("click through B: %d", st)
	}
	// The agent takes control back through B (forwarded to A); the stream on B says so.
	if out := mustBrowserCall(t, csB, "browser_live_url", map[string]any{"action": "take_back"}); out["taken_back"] != true {
		t.Fatalf("take back through B: %v", out)
	}
	for {
		if err := json.Unmarshal([]byte(next("state")), &state); err != nil {
			t.Fatal(err)
		}
		if !state.Human {
			break
		}
	}
	if read = mustBrowserCall(t, csA, "browser_read", map[string]any{"selector": "#n"}); read["text"] != "3" {
		t.Fatalf("after the click posted to B's live view, A reads %v", read)
	}
	cancel()
	resp.Body.Close()
	if got := sessionStarts(t, c, ada.ID); len(got) != 1 {
		t.Fatalf("session starts %v after the live view on B, want A's only", got)
	}

	// A stops (its session's stop is recorded): B starts the session itself and holds it.
	c.stop(a)
	mustBrowserCall(t, csB, "browser_navigate", map[string]any{"url": counter})
	if got := sessionStarts(t, c, ada.ID); len(got) != 2 || got[1] != b.base {
		t.Fatalf("session starts %v, want A's then B's (%s)", got, b.base)
	}
	if read = mustBrowserCall(t, csB, "browser_read", map[string]any{"selector": "#n"}); read["text"] != "0" {
		t.Fatalf("a fresh page on B reads %v", read)
	}
	mustBrowserCall(t, csC, "browser_click", map[string]any{"selector": "#inc"})
	if read = mustBrowserCall(t, csB, "browser_read", map[string]any{"selector": "#n"}); read["text"] != "1" {
		t.Fatalf("after a click through C, B reads %v", read)
	}

	// B is killed (no stop is recorded): C finds it unreachable, starts the session and holds it.
	if err := b.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.done
	mustBrowserCall(t, csC, "browser_navigate", map[string]any{"url": counter})
	if got := sessionStarts(t, c, ada.ID); len(got) != 3 || got[2] != cr.base {
		t.Fatalf("session starts %v, want A's, B's then C's (%s)", got, cr.base)
	}
	if read = mustBrowserCall(t, csC, "browser_read", map[string]any{"selector": "#n"}); read["text"] != "0" {
		t.Fatalf("a fresh page on C reads %v", read)
	}
}
