package proxy_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/curlsessions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/curlsession"
	"github.com/workbench/workbench/handlers/proxy"
)

// Validation is all-or-nothing: one bad name refuses the whole call, the error names every bad
// integration with its reason, and nothing is minted or recorded.
func TestMintRefusals(t *testing.T) {
	e := newEnv(t, envOptions{})
	cases := []struct {
		name  string
		ask   []string
		wants map[string]string // integration -> reason
	}{
		{"unknown", []string{"keyed", "nope"}, map[string]string{"nope": "UNKNOWN_INTEGRATION"}},
		{"no proxy block", []string{"noproxy", "keyed"}, map[string]string{"noproxy": "PROXY_DISABLED"}},
		{"not connected", []string{"keyed", "other"}, map[string]string{"other": "NOT_CONNECTED"}},
		{"oauth never connected", []string{"acme"}, map[string]string{"acme": "NOT_CONNECTED"}},
		{"each of several", []string{"nope", "noproxy", "other", "keyed", "free"}, map[string]string{"nope": "UNKNOWN_INTEGRATION", "noproxy": "PROXY_DISABLED", "other": "NOT_CONNECTED"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.sessions.Mint(e.ctx, curlsessions.MintRequest{UserID: e.user, Integrations: c.ask})
			var refused *curlsessions.RefusedError
			if !errors.As(err, &refused) {
				t.Fatalf("Mint = %v, want a refusal", err)
			}
			if domain.ErrorCode(err) != domain.CodeInvalid {
				t.Errorf("code %s, want invalid", domain.ErrorCode(err))
			}
			got := map[string]string{}
			for _, p := range refused.Problems {
				got[p.Integration] = p.Reason
				if !strings.Contains(err.Error(), p.Message) || !strings.Contains(p.Message, p.Integration) {
					t.Errorf("message %q does not name %s", p.Message, p.Integration)
				}
			}
			if len(got) != len(c.wants) {
				t.Errorf("problems %v, want %v", got, c.wants)
			}
			for n, r := range c.wants {
				if got[n] != r {
					t.Errorf("%s: reason %q, want %q", n, got[n], r)
				}
			}
		})
	}
	if got := events[curlsession.SessionMinted](t, e, curlsession.TypeSessionMinted, 0); len(got) != 0 {
		t.Fatalf("refused calls recorded %d mints", len(got))
	}
}

// A mint answers a token for each integration's /c/ base URL, expiring in 15 minutes, and is in the
// log before it is returned; the log never holds the token.
func TestMintRecordsTheSession(t *testing.T) {
	e := newEnv(t, envOptions{})
	before := time.Now()
	s := e.mint(t, e.user, "keyed", "free", "keyed")
	if !strings.HasPrefix(s.Token, "wbcs1.") {
		t.Fatalf("token %q", s.Token)
	}
	if d := s.ExpiresAt.Sub(before); d < 14*time.Minute || d > 15*time.Minute+time.Second {
		t.Errorf("expires in %v, want 15 minutes", d)
	}
	want := []curlsessions.SessionIntegration{
		{Name: "keyed", BaseURL: e.srv.URL + "/c/keyed/", Upstream: e.api.srv.URL + "/base/"},
		{Name: "free", BaseURL: e.srv.URL + "/c/free/", Upstream: e.api.srv.URL + "/base/"},
	}
	if len(s.Integrations) != 2 || s.Integrations[0] != want[0] || s.Integrations[1] != want[1] {
		t.Fatalf("integrations %+v, want %+v", s.Integrations, want)
	}
	got := events[curlsession.SessionMinted](t, e, curlsession.TypeSessionMinted, 1)
	if len(got) != 1 {
		t.Fatalf("%d mint events, want 1", len(got))
	}
	m := got[0]
	if m.SessionID != s.SessionID || m.UserID != e.user || m.Via != "api_key" || m.ClientID != "key-1" ||
		strings.Join(m.Integrations, ",") != "keyed,free" || !m.ExpiresAt.Equal(s.ExpiresAt) {
		t.Errorf("mint event %+v", m)
	}
	if strings.Contains(rawLog(t, e), s.Token[6:20]) {
		t.Error("the log holds the token")
	}
}

// The token is verified by signature alone: another replica with the same key (and its own
// process state) accepts it at once.
func TestTokenWorksOnAnotherReplica(t *testing.T) {
	e := newEnv(t, envOptions{})
	s := e.mint(t, e.user, "keyed")
	otherSessions := newSessions(t, e, e.store)
	other, err := proxy.New(proxy.Options{Catalog: e.catalog, Credentials: e.creds, Sessions: otherSessions, Key: e.key, PublicURL: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = otherSessions.Run(e.ctx) }()
	w := newRecorder()
	other.ServeHTTP(w, authed(t, "GET", "/c/keyed/user", s.Token))
	if w.Code != 200 || e.api.last(t).RequestURI != "/base/user" {
		t.Fatalf("second replica answered %d %s", w.Code, w.Body)
	}
	wrongKey, err := proxy.New(proxy.Options{Catalog: e.catalog, Credentials: e.creds, Sessions: otherSessions, Key: []byte(strings.Repeat("x", 32)), PublicURL: e.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	w = newRecorder()
	wrongKey.ServeHTTP(w, authed(t, "GET", "/c/keyed/user", s.Token))
	if w.Code != 401 {
		t.Fatalf("a replica with another key answered %d", w.Code)
	}
}

func TestMintNeedsAUser(t *testing.T) {
	e := newEnv(t, envOptions{})
	if _, err := e.sessions.Mint(e.ctx, curlsessions.MintRequest{UserID: uuid.Nil, Integrations: []string{"keyed"}}); domain.ErrorCode(err) != domain.CodeUnauthenticated {
		t.Fatalf("Mint without a user = %v", err)
	}
}
