package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/browserpool"
	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
)

// CookieStore is the part of app/connections a capture writes through: the sealed bundle and the
// connection it makes.
type CookieStore interface {
	ConnectCookies(ctx context.Context, user uuid.UUID, integration, account string, cookies []connections.Cookie) (connections.CookieBundle, error)
}

// captureSessions is the part of Service a capture uses (an interface so that it is declared by the
// code that uses it).
type captureSessions interface {
	Acquire(ctx context.Context, user uuid.UUID) (*browserpool.Session, error)
	RecordCapture(ctx context.Context, ev browserdom.BrowserCookiesCaptured, md eventstore.Metadata) error
}

// Capture stores the cookies of a cookie integration from the user's browser session (spec,
// Connection: "cookie requires a stored bundle with at least one unexpired cookie"; How it works:
// the user "signs in to the target service live and captures a session"). The browser's whole jar is
// read over CDP (Storage.getCookies: every cookie of the profile, HttpOnly ones included), and
// app/connections keeps those of the integration's declared domains, sealed, as the connection's
// credential. The capture is then recorded as BrowserCookiesCaptured (integration, domains, count,
// expiry; never a cookie's name or value).
type Capture struct {
	sessions captureSessions
	cookies  CookieStore
	now      func() time.Time
}

// NewCapture returns the capture use case over the browser service; now nil means time.Now.
func NewCapture(sessions captureSessions, cookies CookieStore, now func() time.Time) *Capture {
	if now == nil {
		now = time.Now
	}
	return &Capture{sessions: sessions, cookies: cookies, now: now}
}

// Capture reads the user's browser jar and stores integration's bundle as the account labelled
// account (empty: the default account; see connections.Service.ConnectCookies). While the session is starting
// or being reset it is the BROWSER_SESSION_BUSY error of Service.Acquire (errors.Is
// app/browserpool.ErrBusy).
func (c *Capture) Capture(ctx context.Context, user uuid.UUID, integration, account string) (connections.CookieBundle, error) {
	s, err := c.sessions.Acquire(ctx, user)
	if err != nil {
		return connections.CookieBundle{}, err
	}
	defer s.Release()
	s.Touch()
	jar, err := readJar(ctx, s)
	if err != nil {
		return connections.CookieBundle{}, err
	}
	bundle, err := c.cookies.ConnectCookies(ctx, user, integration, account, jar)
	if err != nil {
		return connections.CookieBundle{}, err
	}
	ev := browserdom.BrowserCookiesCaptured{UserID: user, Integration: integration, Account: account, Domains: bundle.Domains,
		Count: bundle.Stored, ExpiresAt: bundle.ExpiresAt, At: c.now().UTC()}
	if err := c.sessions.RecordCapture(ctx, ev, eventstore.Metadata{Actor: user.String(), Time: ev.At}); err != nil {
		return connections.CookieBundle{}, fmt.Errorf("capture: record: %w", err)
	}
	return bundle, nil
}

// readJar returns every cookie of the session's profile.
func readJar(ctx context.Context, s *browserpool.Session) ([]connections.Cookie, error) {
	res, err := proto.StorageGetCookies{}.Call(s.Browser().Context(ctx))
	if err != nil {
		return nil, &domain.Error{Code: domain.CodeUnavailable, Message: "the browser session did not answer; try the capture again", Err: err}
	}
	out := make([]connections.Cookie, 0, len(res.Cookies))
	for _, ck := range res.Cookies {
		c := connections.Cookie{Name: ck.Name, Value: ck.Value, Domain: ck.Domain, Path: ck.Path, Secure: ck.Secure, HTTPOnly: ck.HTTPOnly}
		// CDP gives a session cookie Session: true and an expiry of -1 (Network.Cookie.expires,
		// seconds since the epoch).
		if !ck.Session && ck.Expires > 0 {
			c.Expires = ck.Expires.Time().UTC()
		}
		out = append(out, c)
	}
	return out, nil
}
