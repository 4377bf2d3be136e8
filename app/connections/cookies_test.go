package connections_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/plugins"
)

// cookieSite is a provider that authenticates by session cookie and records the Cookie header of
// every request.
type cookieSite struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newCookieSite(t *testing.T) *cookieSite {
	c := &cookieSite{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.seen = append(c.seen, r.Header.Get("Cookie"))
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{}`)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *cookieSite) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) == 0 {
		return "<no request>"
	}
	return c.seen[len(c.seen)-1]
}

// A captured bundle keeps only the declared domain's unexpired cookies, sealed; the integration is
// connected while one of them is unexpired, its requests carry exactly those cookies, and once the
// last one expires it is NOT_CONNECTED. The pending connect attempt completes.
func TestCookieBundleConnectsUntilTheLastCookieExpires(t *testing.T) {
	site := newCookieSite(t)
	clock := testenv.NewClock(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC))
	advance := clock.Advance

	e := newEnvWith(t, "body", envOptions{extra: func(dir string, _ *provider) {
		writePlugin(t, dir, "crumbs", fmt.Sprintf(`{"name":"crumbs","version":"1","display_name":"Crumbs","description":"test","base_url":%q,
			"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"]}}}`, site.srv.URL))
	}})
	e.opts = func(c *connections.Config) { c.Now = clock.Now }
	n := e.node(true)
	user := uuid.New()
	crumbs, _ := e.catalog.Integration("crumbs")

	started, err := n.svc.Connect(e.ctx, user, "crumbs", "")
	if err != nil {
		t.Fatal(err)
	}
	if started.Type != "cookie" {
		t.Fatalf("connect type %q, want cookie", started.Type)
	}
	if _, err := n.svc.ConnectCookies(e.ctx, user, "crumbs", "", []connections.Cookie{{Name: "other", Value: "x", Domain: "example.com"}}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("a bundle without a declared domain's cookie: %v, want invalid", err)
	}
	t0 := clock.Now()
	bundle, err := n.svc.ConnectCookies(e.ctx, user, "crumbs", "", []connections.Cookie{
		{Name: "sid", Value: "s-1", Domain: "127.0.0.1", Path: "/", Expires: t0.Add(2 * time.Hour), HTTPOnly: true},
		{Name: "csrf", Value: "c-1", Domain: ".127.0.0.1", Path: "/", Expires: t0.Add(time.Hour)},
		{Name: "old", Value: "gone", Domain: "127.0.0.1", Expires: t0.Add(-time.Minute)},
		{Name: "tracker", Value: "t", Domain: "ads.example.com", Expires: t0.Add(time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	if bundle.Stored != 2 || !bundle.ExpiresAt.Equal(t0.Add(2*time.Hour)) {
		t.Fatalf("bundle %+v, want 2 cookies until %v", bundle, t0.Add(2*time.Hour))
	}
	outcome, err := n.svc.WaitForConnection(e.ctx, user, started.ConnectionID, 5*time.Second)
	if err != nil || outcome != "CONNECTED" {
		t.Fatalf("wait_for_connection = %q, %v; want CONNECTED", outcome, err)
	}

	call := func() error {
		acc, err := n.svc.Access(e.ctx, user, crumbs, "")
		if err != nil {
			return err
		}
		rc := plugins.NewContext(crumbs, plugins.ContextOptions{UserID: user.String(), Injector: acc.Injector})
		resp, err := rc.HTTP().Get(site.srv.URL + "/me")
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	connected := func() bool {
		m, err := n.svc.Connected(e.ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		return m["crumbs"]
	}

	if !connected() {
		t.Fatal("not connected right after the capture")
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	if got, want := site.last(), "csrf=c-1; sid=s-1"; got != want {
		t.Fatalf("Cookie header %q, want %q", got, want)
	}

	advance(90 * time.Minute) // csrf has expired, sid has not
	if !connected() {
		t.Fatal("not connected while sid is unexpired")
	}
	if err := call(); err != nil {
		t.Fatal(err)
	}
	if got, want := site.last(), "sid=s-1"; got != want {
		t.Fatalf("Cookie header after csrf expired %q, want %q", got, want)
	}

	advance(30 * time.Minute) // exactly sid's expiry
	if connected() {
		t.Fatal("still connected once every cookie has expired")
	}
	if err := call(); domain.ErrorCode(err) != domain.CodeNotConnected {
		t.Fatalf("a call after expiry: %v, want NOT_CONNECTED", err)
	}
}

// A bundle holding a session cookie (no expiry) has no known end; a bad cookie is refused whole and
// nothing is stored; another auth mode is refused.
func TestCookieBundleChecks(t *testing.T) {
	e := newEnvWith(t, "body", envOptions{extra: func(dir string, p *provider) {
		writePlugin(t, dir, "crumbs", fmt.Sprintf(`{"name":"crumbs","version":"1","display_name":"Crumbs","description":"test","base_url":%q,
			"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"]}}}`, p.srv.URL))
	}})
	n := e.node(true)
	user := uuid.New()
	later := time.Now().Add(time.Hour)
	bundle, err := n.svc.ConnectCookies(e.ctx, user, "crumbs", "", []connections.Cookie{
		{Name: "sid", Value: "s", Domain: "127.0.0.1"},
		{Name: "pref", Value: "p", Domain: "127.0.0.1", Expires: later},
	})
	if err != nil {
		t.Fatal(err)
	}
	if bundle.Stored != 2 || !bundle.ExpiresAt.IsZero() {
		t.Fatalf("bundle %+v, want 2 cookies and no expiry", bundle)
	}
	for name, c := range map[string]connections.Cookie{
		"a bad name":         {Name: "s id", Value: "v", Domain: "127.0.0.1"},
		"a control char":     {Name: "sid", Value: "a\nb", Domain: "127.0.0.1"},
		"a semicolon":        {Name: "sid", Value: "a;b=c", Domain: "127.0.0.1"},
		"an oversized value": {Name: "sid", Value: string(make([]byte, 5000)), Domain: "127.0.0.1"},
	} {
		if _, err := n.svc.ConnectCookies(e.ctx, user, "crumbs", "", []connections.Cookie{c}); domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
	if _, err := n.svc.ConnectCookies(e.ctx, user, "keyed", "", []connections.Cookie{{Name: "a", Value: "b", Domain: "127.0.0.1"}}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("cookies for an API-key integration: %v, want invalid", err)
	}
}
