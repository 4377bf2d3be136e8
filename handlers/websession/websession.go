// Package websession owns the portal's signed-in session: a signed cookie (internal/signed) naming a workbench
// user, a session id, when it was issued and when it expires; the check, on every request, that the
// session was not ended early; and the cross-site request forgery guard for the portal's
// state-changing routes.
//
// Sessions are issued by sign-in (app/signin: SSO, or the one-time link printed at start);
// tests mint them with Manager.Cookie.
//
// # Ending a session
//
// The cookie is self-contained, so every replica given the same key accepts it; only its early end
// is state. Signing out (End) records portal.session_ended for that session, "sign out everywhere"
// (EndAll) portal.all_sessions_ended for the user, which ends every session issued at or before it
// (domain/portalsession). Both wait until the read model (projections/portalsessionsrm, in the shared
// database) holds the end before they return, and Guard asks that read model about every request
// that carries a genuine cookie, so an ended session is refused on every replica from the moment the
// sign-out is answered. A lookup that fails is a 503 with Retry-After, never a silent sign-out or a
// silent pass. The per-request lookup, rather than the in-memory set of ended MCP sessions, is
// explained in projections/portalsessionsrm.
//
// # Fresh sessions
//
// Showing a stored secret again (the API key) needs a session issued within FreshFor (5 minutes):
// a stolen or forgotten cookie alone cannot read the key out. Fresh tells the handler; the person
// signs in again to get a fresh session.
package websession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/signed"
)

// CookieName is the session cookie's name.
const CookieName = "workbench_session"

// DefaultTTL is how long a session lasts when Options.TTL is zero.
const DefaultTTL = 12 * time.Hour

// FreshFor is how young a session must be to show a stored secret again (see the package doc).
const FreshFor = 5 * time.Minute

// CSRFHeader is the header a same-origin script may send instead of an Origin header. Browsers only
// let a cross-origin page set it after a CORS preflight the server never grants.
const CSRFHeader = "X-Workbench-CSRF"

// ErrNoSession is Session's answer for a request without a usable session: no cookie, a forged or
// expired one, or one that was ended.
var ErrNoSession = errors.New("websession: no signed-in session")

// EndedLookup answers whether a session was ended early (projections/portalsessionsrm.Reader). An
// error is a storage failure, never a verdict.
type EndedLookup interface {
	Ended(ctx context.Context, user, session uuid.UUID, issued time.Time) (bool, error)
}

// Ender records the end of sessions (app/portalsessions.Service); both return once every replica
// refuses the sessions they end.
type Ender interface {
	End(ctx context.Context, user, session uuid.UUID, issuedAt, expiresAt time.Time, md eventstore.Metadata) error
	EndAll(ctx context.Context, user uuid.UUID, md eventstore.Metadata) error
}

// Options tune a Manager; nil means defaults.
type Options struct {
	TTL time.Duration    // default DefaultTTL
	Now func() time.Time // default time.Now
	// Ended and Ends make sessions revocable: Ended is asked about every genuine cookie, End and
	// EndAll are recorded by Ends. The server sets both; without them a session lasts until its
	// expiry and End and EndAll fail.
	Ended EndedLookup
	Ends  Ender
}

// Manager issues, reads and ends portal sessions.
type Manager struct {
	cookies *signed.Sealer[payload]
	origin  string // scheme://host[:port] of the public URL
	secure  bool
	ttl     time.Duration
	now     func() time.Time

	ended EndedLookup
	ends  Ender
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
		m.ended, m.ends = opts.Ended, opts.Ends
	}
	m.cookies, err = signed.New[payload](key, cookieLabel, &signed.Options{MaxLen: maxCookieLen, Now: m.now})
	if err != nil {
		return nil, fmt.Errorf("websession: %w", err)
	}
	return m, nil
}

// Session is one signed-in browser.
type Session struct {
	ID        uuid.UUID
	User      uuid.UUID
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Fresh reports whether the session was issued within FreshFor of now.
func (s Session) Fresh(now time.Time) bool {
	return !now.Before(s.IssuedAt.Add(-time.Minute)) && now.Sub(s.IssuedAt) <= FreshFor
}

// The cookie is a token of internal/signed under this label (v2 added the session id and issue time;
// v3 is the move to internal/signed), at most maxCookieLen bytes long.
const (
	cookieLabel  = "workbench/portal-session/v3"
	maxCookieLen = 1024
)

// payload is what the cookie carries; its expiry is the token's own.
type payload struct {
	User    uuid.UUID `json:"u"`
	Session uuid.UUID `json:"s"`
	Issued  int64     `json:"i"` // unix nanoseconds
}

// Cookie mints a session cookie for user, with a new session id, without writing it anywhere: Issue
// uses it, and so may a test harness.
func (m *Manager) Cookie(user uuid.UUID) (*http.Cookie, error) {
	if user == uuid.Nil {
		return nil, errors.New("websession: no user")
	}
	now := m.now()
	exp := now.Add(m.ttl)
	value, err := m.cookies.Seal(payload{User: user, Session: uuid.New(), Issued: now.UnixNano()}, exp)
	if err != nil {
		return nil, err
	}
	return &http.Cookie{
		Name:     CookieName,
		Value:    value,
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

// Clear removes the session cookie from the browser. It does not end the session: End does.
func (m *Manager) Clear(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: m.secure, SameSite: http.SameSiteLaxMode})
}

// parse reads r's session cookie if it is genuine and unexpired; it does not ask whether the
// session was ended.
func (m *Manager) parse(r *http.Request) (Session, string, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return Session{}, "", false
	}
	p, exp, err := m.cookies.Open(c.Value)
	if err != nil || p.User == uuid.Nil || p.Session == uuid.Nil || p.Issued == 0 {
		return Session{}, "", false
	}
	return Session{ID: p.Session, User: p.User, IssuedAt: time.Unix(0, p.Issued).UTC(), ExpiresAt: exp}, c.Value, true
}

type verdictKey struct{}

// verdict is Guard's answer about one cookie, kept for the handlers of the same request.
type verdict struct {
	cookie string
	ended  bool
}

// Session returns the signed-in session of r: ErrNoSession when there is none (or it was ended),
// another error when whether it was ended cannot be told (storage).
func (m *Manager) Session(r *http.Request) (Session, error) {
	s, raw, ok := m.parse(r)
	if !ok {
		return Session{}, ErrNoSession
	}
	if m.ended == nil {
		return s, nil
	}
	if v, ok := r.Context().Value(verdictKey{}).(verdict); ok && v.cookie == raw {
		if v.ended {
			return Session{}, ErrNoSession
		}
		return s, nil
	}
	ended, err := m.ended.Ended(r.Context(), s.User, s.ID, s.IssuedAt)
	if err != nil {
		return Session{}, err
	}
	if ended {
		return Session{}, ErrNoSession
	}
	return s, nil
}

// User returns the signed-in user of r, if its session cookie is genuine, unexpired and not ended.
// A lookup that fails counts as no session here; Guard answers those requests with 503 before any
// handler sees them.
func (m *Manager) User(r *http.Request) (uuid.UUID, bool) {
	s, err := m.Session(r)
	if err != nil {
		return uuid.Nil, false
	}
	return s.User, true
}

// Guard asks, once per request that carries a genuine session cookie, whether the session was
// ended, and keeps the answer for Session and User. An ended session's cookie is removed from the
// browser; a lookup that fails is answered 503 with Retry-After (JSON, as the API's errors are).
func (m *Manager) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, raw, ok := m.parse(r)
		if !ok || m.ended == nil {
			next.ServeHTTP(w, r)
			return
		}
		ended, err := m.ended.Ended(r.Context(), s.User, s.ID, s.IssuedAt)
		if err != nil {
			w.Header().Set("Retry-After", "5")
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(http.StatusServiceUnavailable)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": string(domain.CodeUnavailable),
				"message": "the session store cannot be reached; try again in a moment"})
			return
		}
		if ended {
			m.Clear(w)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verdictKey{}, verdict{cookie: raw, ended: ended})))
	})
}

// End ends one session (sign-out) and returns once every replica refuses it.
func (m *Manager) End(ctx context.Context, s Session, md eventstore.Metadata) error {
	if m.ends == nil {
		return errNotRevocable
	}
	return m.ends.End(ctx, s.User, s.ID, s.IssuedAt, s.ExpiresAt, md)
}

// EndAll ends every session of user issued until now ("sign out everywhere") and returns once every
// replica refuses them.
func (m *Manager) EndAll(ctx context.Context, user uuid.UUID, md eventstore.Metadata) error {
	if m.ends == nil {
		return errNotRevocable
	}
	return m.ends.EndAll(ctx, user, md)
}

var errNotRevocable = errors.New("websession: sessions are not revocable here (no Ends)")

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
