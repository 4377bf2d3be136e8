package websession

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/signed"
)

func newManager(t *testing.T, public string, now *time.Time) *Manager {
	t.Helper()
	m, err := New([]byte(strings.Repeat("k", 32)), public, &Options{TTL: time.Hour, Now: func() time.Time { return *now }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func requestWith(c *http.Cookie) *http.Request {
	r := httptest.NewRequest("GET", "/", nil)
	if c != nil {
		r.AddCookie(c)
	}
	return r
}

func TestSessionCookie(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m := newManager(t, "https://wb.example.com", &now)
	user := uuid.New()
	c, err := m.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/" {
		t.Fatalf("cookie attributes: %+v", c)
	}
	other, err := New([]byte(strings.Repeat("x", 32)), "https://wb.example.com", &Options{TTL: time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}

	tampered := *c
	body, sig, _ := strings.Cut(c.Value, ".")
	tampered.Value = body[:len(body)-2] + "AA." + sig

	tests := []struct {
		name   string
		m      *Manager
		cookie *http.Cookie
		at     time.Time
		ok     bool
	}{
		{"genuine", m, c, now, true},
		{"no cookie", m, nil, now, false},
		{"tampered payload", m, &tampered, now, false},
		{"signed with another key", other, c, now, false},
		{"just before expiry", m, c, now.Add(time.Hour - time.Second), true},
		{"expired", m, c, now.Add(time.Hour), false},
		{"garbage", m, &http.Cookie{Name: CookieName, Value: "not.a-session"}, now, false},
		{"oversized", m, &http.Cookie{Name: CookieName, Value: strings.Repeat("a", 2000)}, now, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := now
			now = tt.at
			defer func() { now = saved }()
			got, ok := tt.m.User(requestWith(tt.cookie))
			if ok != tt.ok || (ok && got != user) {
				t.Fatalf("User = %s, %v; want ok=%v", got, ok, tt.ok)
			}
		})
	}
	if c, _ := newManager(t, "http://localhost:8080", &now).Cookie(user); c.Secure {
		t.Fatal("cookie is Secure on a plain-http public URL")
	}
}

// A cookie over the length cap is refused before anything of it is decoded, even one genuinely
// signed with the key and label (here padded with a field the payload does not have).
func TestOverLongCookieIsRefused(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	m := newManager(t, "https://wb.example.com", &now)
	type padded struct {
		payload
		Pad string `json:"pad"`
	}
	big, err := signed.New[padded]([]byte(strings.Repeat("k", 32)), cookieLabel, &signed.Options{MaxLen: 4 * maxCookieLen, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	p := payload{User: user, Session: uuid.New(), Issued: now.UnixNano()}
	for _, tc := range []struct {
		pad  int
		want bool
	}{{0, true}, {2 * maxCookieLen, false}} {
		v, err := big.Seal(padded{payload: p, Pad: strings.Repeat("p", tc.pad)}, now.Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := m.User(requestWith(&http.Cookie{Name: CookieName, Value: v})); ok != tc.want || (ok && got != user) {
			t.Fatalf("cookie of %d bytes: User = %s, %v; want %v", len(v), got, ok, tc.want)
		}
	}
}

func TestSameOrigin(t *testing.T) {
	now := time.Now()
	m := newManager(t, "https://wb.example.com", &now)
	tests := []struct {
		name    string
		method  string
		headers map[string]string
		ok      bool
	}{
		{"GET always", "GET", map[string]string{"Origin": "https://evil.example"}, true},
		{"POST same origin", "POST", map[string]string{"Origin": "https://wb.example.com"}, true},
		{"POST foreign origin", "POST", map[string]string{"Origin": "https://evil.example"}, false},
		{"POST foreign origin with the header", "POST", map[string]string{"Origin": "https://evil.example", CSRFHeader: "1"}, false},
		{"POST null origin", "POST", map[string]string{"Origin": "null"}, false},
		{"POST no origin, custom header", "POST", map[string]string{CSRFHeader: "1"}, true},
		{"POST no origin, same-origin fetch", "POST", map[string]string{"Sec-Fetch-Site": "same-origin"}, true},
		{"POST no origin, cross-site fetch", "POST", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"DELETE bare", "DELETE", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "/api/x", nil)
			for k, v := range tt.headers {
				r.Header.Set(k, v)
			}
			if got := m.SameOrigin(r); got != tt.ok {
				t.Fatalf("SameOrigin = %v, want %v", got, tt.ok)
			}
		})
	}
}
