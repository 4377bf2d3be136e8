package connectortools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
)

// stateAdapter is a connector whose only code is a state hook.
type stateAdapter struct {
	slug  string
	calls atomic.Int64
	fn    func(ctx context.Context, creds map[string]string, ac connector.Context) (json.RawMessage, error)
}

func (a *stateAdapter) Slug() string { return a.slug }

func (a *stateAdapter) State(ctx context.Context, creds map[string]string, ac connector.Context) (json.RawMessage, error) {
	a.calls.Add(1)
	return a.fn(ctx, creds, ac)
}

// stateFolder is a token connector on the remote endpoint u with an optional state key and guidance.
func stateFolder(fsys fstest.MapFS, slug, u, key, guidance string, extra string) {
	m := map[string]any{"slug": slug, "display_name": strings.ToUpper(slug[:1]) + slug[1:], "endpoint": map[string]string{"url": u}, "auth": map[string]string{"kind": "token"}}
	if key != "" {
		m["state"] = map[string]string{"key": key, "intro": "What " + slug + " holds right now."}
	}
	if guidance != "" {
		m["prompt"] = map[string]string{"guidance": guidance}
	}
	if extra != "" {
		_ = json.Unmarshal([]byte(extra), &m)
	}
	b, _ := json.Marshal(m)
	fsys[slug+"/connector.json"] = &fstest.MapFile{Data: b}
}

// lockedBuffer is a log sink several goroutines write.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// A run start runs the state hooks of the connectors the agent has On: a value is redacted against
// the login's credentials; a value over 32,000 serialised bytes, one that is not JSON and a failure
// become {"unavailable": reason} and log; a reserved key is dropped without running its hook; a
// connector with no On tool runs no hook and adds no guidance; the instructions render each key's
// intro and value and each offered connector's guidance.
func TestStateHooksAtRunStart(t *testing.T) {
	const tok = "tok-state-hooks-0123456789"
	r := newRemote(t, tok)
	fsys := fstest.MapFS{}
	stateFolder(fsys, "tracker", r.URL(), "tracker_queue", "Use tracker_echo to repeat things.", "")
	stateFolder(fsys, "big", r.URL(), "big_blob", "", "")
	stateFolder(fsys, "broken", r.URL(), "broken_thing", "", "")
	stateFolder(fsys, "garbled", r.URL(), "garbled", "", "")
	stateFolder(fsys, "imposter", r.URL(), "agent", "", "")
	stateFolder(fsys, "guide", r.URL(), "", "Prefer guide_echo for quoting.", "")
	stateFolder(fsys, "quiet", r.URL(), "quiet_state", "Never shown: no tool of quiet is On.", `{"policy":{"default_off":["*"]}}`)
	ad := map[string]*stateAdapter{
		"tracker": {fn: func(_ context.Context, creds map[string]string, ac connector.Context) (json.RawMessage, error) {
			if creds["token"] != tok || string(ac.Settings) != "{}" || ac.Remote == nil {
				return nil, fmt.Errorf("hook got creds %v, settings %s", creds, ac.Settings)
			}
			return json.RawMessage(`{"open": 3, "owner": "` + tok + `"}`), nil
		}},
		"big": {fn: func(context.Context, map[string]string, connector.Context) (json.RawMessage, error) {
			return json.Marshal(strings.Repeat("x", 33000))
		}},
		"broken": {fn: func(context.Context, map[string]string, connector.Context) (json.RawMessage, error) {
			return nil, errors.New("upstream refused " + tok)
		}},
		"garbled": {fn: func(context.Context, map[string]string, connector.Context) (json.RawMessage, error) {
			return json.RawMessage(`{oops`), nil
		}},
		"imposter": {fn: func(context.Context, map[string]string, connector.Context) (json.RawMessage, error) {
			return json.RawMessage(`"I am the agent"`), nil
		}},
		"quiet": {fn: func(context.Context, map[string]string, connector.Context) (json.RawMessage, error) {
			return json.RawMessage(`1`), nil
		}},
	}
	adapters := map[string]connector.Adapter{}
	for slug, a := range ad {
		a.slug = slug
		adapters[slug] = a
	}
	var logs lockedBuffer
	e := connectorstest.Open(t, worldOptions{FS: fsys, Adapters: adapters, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := context.Background()
	for _, slug := range []string{"tracker", "big", "broken", "garbled", "imposter", "guide", "quiet"} {
		if _, err := e.Service.Connect(ctx, user, connectors.ConnectRequest{ServerID: "mcp_" + slug, Owner: owner(login.ScopeAgent, agent), Fields: map[string]string{"token": tok}}); err != nil {
			t.Fatalf("connect %s: %v", slug, err)
		}
	}
	rc, err := e.Service.RunContext(ctx, execCaller(agent))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var keys []string
	for _, s := range rc.State {
		got[s.Key] = string(s.Value)
		keys = append(keys, s.Key)
	}
	want := map[string]string{
		"tracker_queue": `{"open":3,"owner":"[REDACTED]"}`,
		"big_blob":      `{"unavailable":"the value is 33002 bytes serialised; at most 32000"}`,
		"broken_thing":  `{"unavailable":"the state hook failed: upstream refused [REDACTED]"}`,
		"garbled":       `{"unavailable":"the state hook's value is not JSON"}`,
	}
	if strings.Join(keys, ",") != "big_blob,broken_thing,garbled,tracker_queue" {
		t.Fatalf("state keys = %v", keys)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("state[%s] = %s, want %s", k, got[k], v)
		}
	}
	if n := ad["imposter"].calls.Load(); n != 0 {
		t.Errorf("the hook of a reserved key ran %d times", n)
	}
	if n := ad["quiet"].calls.Load(); n != 0 {
		t.Errorf("the hook of a connector with no On tool ran %d times", n)
	}
	if len(rc.Guidance) != 2 || rc.Guidance[0].ServerID != "mcp_guide" || rc.Guidance[1].ServerID != "mcp_tracker" {
		t.Fatalf("guidance = %+v", rc.Guidance)
	}
	text := rc.Instructions()
	for _, s := range []string{
		"What tracker holds right now.\ntracker_queue = {\"open\":3,\"owner\":\"[REDACTED]\"}",
		"What big holds right now.\nbig_blob = {\"unavailable\":",
		"Guide (tools guide_*): Prefer guide_echo for quoting.",
		"Tracker (tools tracker_*): Use tracker_echo to repeat things.",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("instructions lack %q:\n%s", s, text)
		}
	}
	for _, s := range []string{tok, "I am the agent", "quiet", "What imposter"} {
		if strings.Contains(text, s) {
			t.Errorf("instructions hold %q:\n%s", s, text)
		}
	}
	l := logs.String()
	if strings.Contains(l, tok) || !strings.Contains(l, "state hook unavailable") || !strings.Contains(l, "its key is the core's") {
		t.Errorf("logs:\n%s", l)
	}
}

// A hook that does not answer within the budget is unavailable with the reason; the run start does
// not wait for it beyond the budget (the hook ends only when its context does).
func TestStateHookTimesOut(t *testing.T) {
	const tok = "tok-state-slow-0123456789"
	r := newRemote(t, tok)
	fsys := fstest.MapFS{}
	stateFolder(fsys, "slow", r.URL(), "slow_state", "", "")
	slow := &stateAdapter{slug: "slow", fn: func(ctx context.Context, _ map[string]string, _ connector.Context) (json.RawMessage, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	e := connectorstest.Open(t, worldOptions{FS: fsys, Adapters: map[string]connector.Adapter{"slow": slow}, StateBudget: time.Millisecond})
	ctx := context.Background()
	if _, err := e.Service.Connect(ctx, user, connectors.ConnectRequest{ServerID: "mcp_slow", Owner: owner(login.ScopeAgent, agent), Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	rc, err := e.Service.RunContext(ctx, execCaller(agent))
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.State) != 1 || string(rc.State[0].Value) != `{"unavailable":"the state hook did not answer within 1ms"}` {
		t.Fatalf("state = %+v", rc.State)
	}
}
