package browserhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browser/replicaauth"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
)

// internalCall POSTs body to the internal path, signed by signer for user (nil: unsigned).
func (e *env) internalCall(signer *replicaauth.Signer, user uuid.UUID, path string, body []byte) (int, []byte) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(e.ctx, http.MethodPost, e.srv.URL+path, bytes.NewReader(body))
	if signer != nil {
		signer.Sign(req, user, body)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// The internal routes answer only requests signed with the replicas' key, for the user the signature
// names; a forwarded tool call runs on this replica's session and answers its result and target.
func TestInternalRoutesAnswerReplicasOnly(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	nav, _ := json.Marshal(map[string]any{"tool": "browser_navigate", "args": map[string]any{"url": e.site.srv.URL + "/button"}})

	stranger, _ := replicaauth.New(bytes.Repeat([]byte("x"), 32), nil)
	for name, signer := range map[string]*replicaauth.Signer{"unsigned": nil, "another key": stranger} {
		if st, b := e.internalCall(signer, user, "/api/internal/browser/tool", nav); st != http.StatusUnauthorized {
			t.Errorf("%s: %d %s", name, st, b)
		}
		if st, b := e.internalCall(signer, user, "/api/internal/browser-session/reset", nil); st != http.StatusUnauthorized {
			t.Errorf("%s reset: %d %s", name, st, b)
		}
	}
	if got := e.browser.Pool().PIDs(); len(got) != 0 {
		t.Fatalf("a refused request started a browser: %v", got)
	}

	st, b := e.internalCall(e.replicas, user, "/api/internal/browser/tool", nav)
	var res struct {
		Result map[string]any
		Error  *struct{ Code, Message string }
		Target string
	}
	if st != http.StatusOK || json.Unmarshal(b, &res) != nil || res.Error != nil || res.Result["url"] != e.site.srv.URL+"/button" {
		t.Fatalf("forwarded navigate: %d %s", st, b)
	}
	if res.Target != strings.TrimPrefix(e.site.srv.URL, "http://") {
		t.Fatalf("forwarded target %q", res.Target)
	}
	if got := e.pageText(user, "#out"); got != "not yet" {
		t.Fatalf("the forwarded call did not drive the user's page: %q", got)
	}
	// A tool's refusal travels as an error, with its code.
	bad, _ := json.Marshal(map[string]any{"tool": "browser_click", "args": map[string]any{"selector": "#missing", "timeout_ms": 300}})
	if st, b := e.internalCall(e.replicas, user, "/api/internal/browser/tool", bad); st != http.StatusOK || !strings.Contains(string(b), "#missing") {
		t.Fatalf("forwarded failing click: %d %s", st, b)
	}
	if st, b := e.internalCall(e.replicas, user, "/api/internal/browser/tool", []byte(`{"tool":"fs_read"}`)); st != http.StatusOK || !strings.Contains(string(b), "no browser tool") {
		t.Fatalf("forwarded unknown tool: %d %s", st, b)
	}
}

// A session recorded as held by a replica that no longer answers is served here: the live-url route
// and the tools start it on this replica, which is recorded as the new holder.
func TestUnreachableHolderIsReplaced(t *testing.T) {
	e := newEnv(t)
	user := uuid.New()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://" + ln.Addr().String()
	ln.Close()
	ev := browserdom.BrowserSessionStarted{UserID: user, PID: 99999, SpawnMS: 1, At: time.Now().UTC(), Replica: gone}
	agg := eventstore.Aggregate[browserdom.State, browserdom.Command, domain.Event]{
		Initial: func() browserdom.State { return browserdom.State{} },
		Evolve:  browserdom.Evolve, Decide: browserdom.Decide,
		Codec: eventstore.NewJSONCodec(browserdom.Events()...),
	}
	if _, err := eventstore.Execute(context.Background(), e.db.Store, browserdom.StreamName(user), agg, browserdom.Command(browserdom.RecordStart{Event: ev}), eventstore.Metadata{Actor: "test"}); err != nil {
		t.Fatal(err)
	}
	if holder, err := e.browser.Holder(e.ctx, user); err != nil || holder != gone {
		t.Fatalf("holder %q %v, want %s", holder, err, gone)
	}
	var minted struct{ URL string }
	if st := e.client(user).do("POST", "/api/browser-session/live-url", nil, &minted); st != http.StatusOK || minted.URL == "" {
		t.Fatalf("live-url with the holder gone: %d %+v", st, minted)
	}
	if holder, err := e.browser.Holder(e.ctx, user); err != nil || holder != "" {
		t.Fatalf("holder after the takeover %q %v, want this replica", holder, err)
	}
	st, _, err := eventstore.LoadState(e.ctx, e.db.Store, browserdom.StreamName(user), agg)
	if err != nil || !st.Running || st.Holder != e.srv.URL || st.Starts != 2 {
		t.Fatalf("after the takeover the log says %+v (%v), want this replica (%s) holding it", st, err, e.srv.URL)
	}
	if e.humanInControl(user) {
		t.Fatal("human in control")
	}
}
