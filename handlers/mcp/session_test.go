package mcp

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/internal/signed"
	"github.com/workbench/workbench/internal/testenv"
)

func clockedServer(t *testing.T, c *testenv.Clock) (*Server, *httptest.Server) {
	t.Helper()
	srv, err := New(Options{
		Auth:       AuthenticatorFunc(func(*http.Request) (Principal, error) { return Principal{UserID: "u"}, nil }),
		Tools:      fakeTools{},
		SessionKey: bytes.Repeat([]byte("k"), 32),
		Now:        c.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return srv, ts
}

// A session id lives SessionLifetime by the server's clock, and its log level with it.
func TestSessionLapsesByTheInjectedClock(t *testing.T) {
	c := testenv.NewClock(time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC))
	srv, ts := clockedServer(t, c)
	sid := initSession(t, ts.URL, "x")
	ping := func() int {
		resp, _ := do(t, ts.URL, exchange{"POST", map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
		return resp.StatusCode
	}
	if _, body := do(t, ts.URL, exchange{"POST", map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`}); !strings.Contains(body, `"result"`) {
		t.Fatalf("setLevel: %s", body)
	}
	sess, ok := srv.checkSession(context.Background(), sid, Principal{UserID: "u"})
	if !ok || !sess.Expires.Equal(c.Now().Add(SessionLifetime)) {
		t.Fatalf("session %+v %v: want it to expire SessionLifetime after the clock's now", sess, ok)
	}
	c.Advance(SessionLifetime - time.Second)
	if st := ping(); st != 200 {
		t.Fatalf("a second before expiry: %d", st)
	}
	if got := srv.levels.get(sess.ID); got != "debug" {
		t.Fatalf("level a second before expiry %q", got)
	}
	c.Advance(time.Second)
	if st := ping(); st != 404 {
		t.Fatalf("at expiry: %d, want 404", st)
	}
	c.Advance(time.Second)
	if got := srv.levels.get(sess.ID); got != "" {
		t.Fatalf("a lapsed session kept its level %q", got)
	}
}

// MemorySessions forgets an ended session once it would have expired, by its clock.
func TestMemorySessionsForgetByTheClock(t *testing.T) {
	c := testenv.NewClock(time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC))
	m := NewMemorySessions(c.Now)
	ctx := context.Background()
	if err := m.End(ctx, "a", c.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	c.Advance(2 * time.Hour)
	if err := m.End(ctx, "b", c.Now().Add(time.Hour)); err != nil { // sweeps the lapsed ones
		t.Fatal(err)
	}
	if ended, _ := m.Ended(ctx, "a"); ended {
		t.Fatal("a lapsed end is still held")
	}
	if ended, _ := m.Ended(ctx, "b"); !ended {
		t.Fatal("a live end is forgotten")
	}
}

// A session id over the length cap is refused before it is decoded, even one genuinely signed
// (padded with a field a session does not have); so is one cut short.
func TestOverLongSessionIDIsRefused(t *testing.T) {
	c := testenv.NewClock(time.Date(2031, 3, 1, 12, 0, 0, 0, time.UTC))
	_, ts := clockedServer(t, c)
	sid := initSession(t, ts.URL, "x")
	type padded struct {
		session
		Pad string `json:"pad"`
	}
	big, err := signed.New[padded](bytes.Repeat([]byte("k"), 32), sessionLabel, &signed.Options{MaxLen: 4 * maxSessionIDLen, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	sess := session{ID: "abc", UserID: "u", Version: "2025-06-18"}
	for _, tc := range []struct {
		sid  string
		want int
	}{
		{sid, 200},
		{sid[:len(sid)-1], 404},
		{seal(t, big, padded{session: sess, Pad: "p"}, c.Now().Add(time.Hour)), 200},
		{seal(t, big, padded{session: sess, Pad: strings.Repeat("p", maxSessionIDLen)}, c.Now().Add(time.Hour)), 404},
	} {
		resp, body := do(t, ts.URL, exchange{"POST", map[string]string{"Mcp-Session-Id": tc.sid}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
		if resp.StatusCode != tc.want {
			t.Fatalf("session id of %d bytes: %d %s, want %d", len(tc.sid), resp.StatusCode, body, tc.want)
		}
	}
}

func seal[T any](t *testing.T, s *signed.Sealer[T], v T, exp time.Time) string {
	t.Helper()
	tok, err := s.Seal(v, exp)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
