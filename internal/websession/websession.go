// Package websession owns the portal's signed-in session: an HMAC-signed cookie naming a workbench
// user and an expiry, and the cross-site request forgery guard for the portal's state-changing
// routes. It keeps no server-side state, so every replica given the same key accepts the cookie.
//
// Sessions are issued by sign-in (internal/signin: SSO, or the one-time link printed at start);
// tests mint them with Manager.Cookie.
package websession

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
)

// CookieName is the session cookie's name.
const CookieName = "workbench_session"

// DefaultTTL is how long a session lasts when Options.TTL is zero.
const DefaultTTL = 12 * time.Hour

// CSRFHeader is the header a same-origin script may send instead of an Origin header. Browsers only
// let a cross-origin page set it after a CORS preflight the server never grants.
const CSRFHeader = "X-Workbench-CSRF"

// Options tune a Manager; nil means defaults.
type Options struct {
	TTL time.Duration    // default DefaultTTL
	Now func() time.Time // default time.Now
}

// Manager issues and reads portal sessions.
type Manager struct {
	key    []byte
	origin string // scheme://host[:port] of the public URL
	secure bool
	ttl    time.Duration
	now    func() time.Time
}

// New returns a Manager signing with key (at least 32 bytes) for the server at publicURL
// (SERVER_PUBLIC_URL): cookies are Secure when it is https, and state-changing requests must come
// from its origin.
func New(key []byte, publicURL string, opts *Options) (*Manager, error) {
	if len(key) < 32 {
		return nil, errors.New("websession: the signing key must be at least 32 bytes")
	}
	u, err := url.Parse(publicURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("websession: the public URL must be an absolute http or https URL")
	}
	m := &Manager{
		key:    append([]byte(nil), key...),
		origin: strings.ToLower(u.Scheme + "://" + u.Host),
		secure: u.Scheme == "https",
		ttl:    DefaultTTL,
		now:    time.Now,
	}
	if opts != nil {
		if opts.TTL > 0 {
			m.ttl = opts.TTL
		}
		if opts.Now != nil {
			m.now = opts.Now
		}
	}
	return m, nil
}

type payload struct {
	User    uuid.UUID `json:"u"`
	Expires int64     `json:"e"` // unix seconds
}

func (m *Manager) sign(body string) string {
	mac := hmac.New(sha256.New, m.key)
	mac.Write([]byte("workbench-portal-session:v1:"))
	mac.Write([]byte(body))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// Cookie mints a session cookie for user without writing it anywhere: Issue uses it, and so may a
// test harness (until SSO sign-in exists, it is the only way to sign in).
func (m *Manager) Cookie(user uuid.UUID) (*http.Cookie, error) {
	if user == uuid.Nil {
		return nil, errors.New("websession: no user")
	}
	exp := m.now().Add(m.ttl)
	raw, err := json.Marshal(payload{User: user, Expires: exp.Unix()})
	if err != nil {
		return nil, err
	}
	body := base64.RawURLEncoding.EncodeToString(raw)
	return &http.Cookie{
		Name:     CookieName,
		Value:    body + "." + m.sign(body),
		Path:     "/",
		Expires:  exp,
		MaxAge:   int(m.ttl / time.Second),
		HttpOnly: true,
		Secure:   m.secure,
		SameSite: http.SameSiteLaxMode,
	}, nil
}

// Issue signs user in on w.
func (m *Manager) Issue(w http.ResponseWriter, user uuid.UUID) error {
	c, err := m.Cookie(user)
	if err != nil {
		return err
	}
	http.SetCookie(w, c)
	return nil
}

// Clear signs the browser out.
func (m *Manager) Clear(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: m.secure, SameSite: http.SameSiteLaxMode})
}

// User returns the signed-in user of r, if its session cookie is genuine and unexpired.
func (m *Manager) User(r *http.Request) (uuid.UUID, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || len(c.Value) > 1024 {
		return uuid.Nil, false
	}
	body, sig, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(m.sign(body))) {
		return uuid.Nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return uuid.Nil, false
	}
	var p payload
	if json.Unmarshal(raw, &p) != nil || p.User == uuid.Nil || m.now().Unix() >= p.Expires {
		return uuid.Nil, false
	}
	return p.User, true
}

// SameOrigin reports whether a state-changing request may be trusted not to be forged by another
// site: its Origin header names the public origin, or, when the browser sent no Origin, it carries
// CSRFHeader (which no cross-origin page can set without a preflight) or Sec-Fetch-Site:
// same-origin. Safe methods (GET, HEAD, OPTIONS) always pass.
func (m *Manager) SameOrigin(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return true
	}
	if o := r.Header.Get("Origin"); o != "" {
		return strings.EqualFold(o, m.origin)
	}
	if r.Header.Get(CSRFHeader) != "" {
		return true
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

// Origin is the public origin state-changing requests must come from.
func (m *Manager) Origin() string { return m.origin }
