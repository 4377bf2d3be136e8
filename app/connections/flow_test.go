package connections_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
)

type waitResult struct {
	status string
	err    error
}

func waitAsync(ctx context.Context, n *node, user, attempt uuid.UUID, timeout time.Duration) <-chan waitResult {
	ch := make(chan waitResult, 1)
	go func() {
		s, err := n.svc.WaitForConnection(ctx, user, attempt, timeout)
		ch <- waitResult{s, err}
	}()
	return ch
}

// The whole flow, once per client authentication style: connect → redeem with the matching session
// → provider consent → callback → wait answers CONNECTED, and the token works and is nowhere in
// clear in the database.
func TestConnectFlow(t *testing.T) {
	for _, style := range []string{"basic", "body", "public"} {
		t.Run(style, func(t *testing.T) {
			e := newEnv(t, style)
			n := e.node(true)
			user := uuid.New()
			res, err := n.svc.Connect(e.ctx, user, "acme", "")
			if err != nil {
				t.Fatal(err)
			}
			if res.Type != "oauth2" || !strings.HasPrefix(res.URL, e.publicURL+"/connect/") || strings.Contains(res.URL, e.provider.srv.URL) {
				t.Fatalf("connect answered %+v: want a workbench claim link", res)
			}
			waited := waitAsync(e.ctx, n, user, res.ConnectionID, 30*time.Second)

			c := n.browser(user)
			status, body := n.redeem(c, res.URL)
			if status != http.StatusOK || body["type"] != "oauth2" || !strings.HasPrefix(body["url"], e.provider.srv.URL+"/authorize?") {
				t.Fatalf("redeem: %d %v", status, body)
			}
			back := n.consent(c, body["url"])
			if back.Path != "/" || back.Query().Get("connected") != "acme" {
				t.Fatalf("callback redirected to %s", back)
			}
			select {
			case w := <-waited:
				if w.err != nil || w.status != connections.StatusConnected {
					t.Fatalf("wait: %q %v", w.status, w.err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the wait did not complete after the callback")
			}
			conn, err := n.svc.Connected(e.ctx, user)
			if err != nil || !conn["acme"] || conn["keyed"] || !conn["free"] {
				t.Fatalf("Connected: %v %v", conn, err)
			}
			acme, _ := e.catalog.Integration("acme")
			acc, err := n.svc.Access(e.ctx, user, acme, "")
			if err != nil {
				t.Fatal(err)
			}
			tok, err := acc.GetToken(e.ctx)
			if err != nil || !strings.HasPrefix(tok, "at-") || acc.ConnectionVersion < 2 {
				t.Fatalf("token %q version %d: %v", tok, acc.ConnectionVersion, err)
			}
			req, _ := http.NewRequest(http.MethodGet, e.provider.srv.URL+"/x", nil)
			if err := acc.Injector.Inject(e.ctx, req); err != nil || req.Header.Get("Authorization") != "Bearer "+tok {
				t.Fatalf("injected %q: %v", req.Header.Get("Authorization"), err)
			}
			if e.provider.exchanges() != 1 {
				t.Fatalf("%d code exchanges, want 1", e.provider.exchanges())
			}
			// Neither the token nor anything of the verifier is stored in clear.
			assertNotStored(t, n, tok)
		})
	}
}

func assertNotStored(t *testing.T, n *node, secret string) {
	t.Helper()
	db := n.reader.DB
	for _, q := range []string{`SELECT COUNT(*) FROM events WHERE CAST(data AS TEXT) LIKE '%' || $1 || '%'`, `SELECT COUNT(*) FROM connections WHERE state LIKE '%' || $1 || '%' OR credential LIKE '%' || $1 || '%'`} {
		var count int
		if err := db.QueryRow(q, secret).Scan(&count); err != nil {
			t.Fatal(err)
		}
		if count != 0 {
			t.Fatalf("the secret is stored in clear (%s)", q)
		}
	}
}

// Claim-link redemption is limited per client address, like client registration: past the limit the
// answer is 429 with Retry-After, before the link is even looked at.
func TestRedeemRateLimited(t *testing.T) {
	e := newEnv(t, "basic")
	e.redeemLimit = 3
	n := e.node(true)
	owner := uuid.New()
	res, err := n.svc.Connect(e.ctx, owner, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	forged := res.URL[:len(res.URL)-2] + "xx"
	for i := range 3 {
		if status, out := n.redeem(n.browser(owner), forged); status != http.StatusBadRequest || out["error"] != "INVALID_LINK" {
			t.Fatalf("attempt %d: %d %v", i+1, status, out)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, n.srv.URL+"/api/connect/redeem", strings.NewReader(`{"token":"x"}`))
	req.Header.Set("Origin", n.sess.Origin())
	resp, err := n.browser(owner).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]string
	_ = decode(resp, &out)
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || out["error"] != "too_many_requests" {
		t.Fatalf("attempt 4: %d Retry-After %q %v", resp.StatusCode, resp.Header.Get("Retry-After"), out)
	}
	// Even the genuine link waits: the limit counts attempts, not failures.
	if status, _ := n.redeem(n.browser(owner), res.URL); status != http.StatusTooManyRequests {
		t.Fatalf("the genuine link past the limit: %d", status)
	}
}

func TestRedeemRefusals(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	owner, other := uuid.New(), uuid.New()
	res, err := n.svc.Connect(e.ctx, owner, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	token := res.URL[strings.LastIndex(res.URL, "/")+1:]
	forged := token[:len(token)-2] + "xx"
	body, sig, _ := strings.Cut(token, ".")
	otherBody := alterClaim(t, body) // another claim under the old signature
	cases := []struct {
		name   string
		client *http.Client
		link   string
		origin string
		status int
		code   string
	}{
		{"another account", n.browser(other), res.URL, e.publicURL, http.StatusForbidden, "ACCOUNT_MISMATCH"},
		{"signed out", n.browser(uuid.Nil), res.URL, e.publicURL, http.StatusUnauthorized, "unauthenticated"},
		{"forged signature", n.browser(owner), forged, e.publicURL, http.StatusBadRequest, "INVALID_LINK"},
		{"altered claim", n.browser(owner), otherBody + "." + sig, e.publicURL, http.StatusBadRequest, "INVALID_LINK"},
		{"foreign origin", n.browser(owner), res.URL, "https://evil.example", http.StatusForbidden, "CROSS_ORIGIN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, n.srv.URL+"/api/connect/redeem", strings.NewReader(`{"token":"`+tc.link[strings.LastIndex(tc.link, "/")+1:]+`"}`))
			req.Header.Set("Origin", tc.origin)
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out map[string]string
			_ = decode(resp, &out)
			if resp.StatusCode != tc.status || out["error"] != tc.code {
				t.Fatalf("got %d %v, want %d %s", resp.StatusCode, out, tc.status, tc.code)
			}
		})
	}
	// No handshake was recorded: nothing was redeemed.
	var count int
	if err := n.reader.DB.QueryRow(`SELECT COUNT(*) FROM events WHERE type = 'connection_handshake.started'`).Scan(&count); err != nil || count != 0 {
		t.Fatalf("%d handshakes recorded (%v), want 0", count, err)
	}
}

// alterClaim returns a link body whose claim differs from body's in one byte and still parses: the
// last digit of the expiry moves by one, so only the signature can refuse it.
func alterClaim(t *testing.T, body string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	i := len(raw) - 2 // the last digit of "e", the final member
	if raw[len(raw)-1] != '}' || raw[i] < '0' || raw[i] > '9' {
		t.Fatalf("unexpected claim layout %s", raw)
	}
	raw[i] ^= 1 // '0'..'9' stays a digit
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("altered claim %s does not parse: %v", raw, err)
	}
	altered := base64.RawURLEncoding.EncodeToString(raw)
	if altered == body {
		t.Fatal("the altered claim equals the original")
	}
	return altered
}

func TestCallbackRefusals(t *testing.T) {
	t.Run("replayed state", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		res, _ := n.svc.Connect(e.ctx, user, "acme", "")
		c := n.browser(user)
		_, body := n.redeem(c, res.URL)
		resp, err := c.Get(body["url"])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		callback := resp.Header.Get("Location")
		if got := n.follow(c, callback).Query().Get("connected"); got != "acme" {
			t.Fatalf("first callback: connected=%q", got)
		}
		back := n.follow(c, callback)
		if back.Query().Get("connect_error") != "state_used" || e.provider.exchanges() != 1 {
			t.Fatalf("replay redirected to %s after %d exchanges", back, e.provider.exchanges())
		}
	})
	t.Run("unknown state", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		back := n.follow(n.browser(uuid.New()), e.publicURL+"/api/auth/plugin/acme/callback?code=x&state=nothing-like-it")
		if back.Query().Get("connect_error") != "invalid_state" || e.provider.exchanges() != 0 {
			t.Fatalf("redirected to %s", back)
		}
	})
	t.Run("denied consent", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		e.provider.set(func(p *provider) { p.denyConsent = true })
		user := uuid.New()
		res, _ := n.svc.Connect(e.ctx, user, "acme", "")
		c := n.browser(user)
		_, body := n.redeem(c, res.URL)
		back := n.consent(c, body["url"])
		if back.Query().Get("connect_error") != "access_denied" || back.Query().Get("integration") != "acme" {
			t.Fatalf("redirected to %s", back)
		}
		if s, err := n.svc.WaitForConnection(e.ctx, user, res.ConnectionID, 50*time.Millisecond); s != connections.StatusTimeout || err != nil {
			t.Fatalf("wait after denial: %q %v", s, err)
		}
		if conn, _ := n.svc.Connected(e.ctx, user); conn["acme"] || e.provider.exchanges() != 0 {
			t.Fatalf("connected after a denial: %v", conn)
		}
	})
	t.Run("another browser's account", func(t *testing.T) {
		e := newEnv(t, "basic")
		n := e.node(true)
		user := uuid.New()
		res, _ := n.svc.Connect(e.ctx, user, "acme", "")
		c := n.browser(user)
		_, body := n.redeem(c, res.URL)
		resp, _ := c.Get(body["url"])
		resp.Body.Close()
		back := n.follow(n.browser(uuid.New()), resp.Header.Get("Location"))
		if back.Query().Get("connect_error") != "account_mismatch" || e.provider.exchanges() != 0 {
			t.Fatalf("redirected to %s", back)
		}
	})
}

func TestExpiredLink(t *testing.T) {
	e := newEnv(t, "basic")
	e.opts = func(c *connections.Config) { c.LinkTTL = time.Second }
	n := e.node(true)
	user := uuid.New()
	res, err := n.svc.Connect(e.ctx, user, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	waited := waitAsync(e.ctx, n, user, res.ConnectionID, time.Minute)
	time.Sleep(1100 * time.Millisecond)
	status, body := n.redeem(n.browser(user), res.URL)
	if status != http.StatusGone || body["error"] != "LINK_EXPIRED" {
		t.Fatalf("redeem of an expired link: %d %v", status, body)
	}
	if w := <-waited; w.status != connections.StatusExpired || w.err != nil {
		t.Fatalf("wait past the link's expiry: %q %v", w.status, w.err)
	}
}

func TestWaitForConnection(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	user := uuid.New()
	first, err := n.svc.Connect(e.ctx, user, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	waitFirst := waitAsync(e.ctx, n, user, first.ConnectionID, time.Minute)

	t.Run("timeout", func(t *testing.T) {
		s, err := n.svc.WaitForConnection(e.ctx, user, first.ConnectionID, 100*time.Millisecond)
		if s != connections.StatusTimeout || err != nil {
			t.Fatalf("%q %v", s, err)
		}
	})
	t.Run("unknown id", func(t *testing.T) {
		_, err := n.svc.WaitForConnection(e.ctx, user, uuid.New(), time.Second)
		if domain.ErrorCode(err) != domain.CodeNotFound || domain.ErrorMessage(err) != "Unknown connectionId" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("another user's id", func(t *testing.T) {
		_, err := n.svc.WaitForConnection(e.ctx, uuid.New(), first.ConnectionID, time.Second)
		if domain.ErrorCode(err) != domain.CodeNotFound || domain.ErrorMessage(err) != "Unknown connectionId" {
			t.Fatalf("%v", err)
		}
	})
	t.Run("a second connect answers the pending attempt", func(t *testing.T) {
		again, err := n.svc.Connect(e.ctx, user, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		if again != first {
			t.Fatalf("the second connect answered %+v, want the pending %+v", again, first)
		}
		if s, err := n.svc.WaitForConnection(e.ctx, user, first.ConnectionID, 100*time.Millisecond); s != connections.StatusTimeout || err != nil {
			t.Fatalf("the first attempt after a second connect: %q %v, want it still pending", s, err)
		}
		select {
		case w := <-waitFirst:
			t.Fatalf("the first waiter heard %q %v after a second connect", w.status, w.err)
		default:
		}
	})
}

// TestTwoSessionsShareOneConnect: two agent sessions of one user call connect for the same
// integration (through ConnectFrom, as the MCP connect and get_auth_url tools do), one after the other
// and at once; the second answers the first's attempt and link, and when the user completes that one
// flow, both waits answer CONNECTED.
func TestTwoSessionsShareOneConnect(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	user := uuid.New()
	first, err := n.svc.ConnectFrom(e.ctx, user, "acme", "", "session-a")
	if err != nil {
		t.Fatal(err)
	}
	second, err := n.svc.ConnectFrom(e.ctx, user, "acme", "", "session-b")
	if err != nil {
		t.Fatal(err)
	}
	if second != first {
		t.Fatalf("the second session got %+v, the first %+v: want one attempt and one link", second, first)
	}
	waitA := waitAsync(e.ctx, n, user, first.ConnectionID, 30*time.Second)
	waitB := waitAsync(e.ctx, n, user, second.ConnectionID, 30*time.Second)

	c := n.browser(user)
	status, body := n.redeem(c, first.URL)
	if status != http.StatusOK {
		t.Fatalf("redeem of the first session's link after the second connect: %d %v", status, body)
	}
	if back := n.consent(c, body["url"]); back.Query().Get("connected") != "acme" {
		t.Fatalf("callback redirected to %s", back)
	}
	for name, ch := range map[string]<-chan waitResult{"first": waitA, "second": waitB} {
		select {
		case w := <-ch:
			if w.status != connections.StatusConnected || w.err != nil {
				t.Fatalf("the %s session's wait: %q %v", name, w.status, w.err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("the %s session's wait did not complete after the callback", name)
		}
	}

	// Two connects at once, for another user: both answer one attempt.
	other := uuid.New()
	results := make(chan connections.ConnectResult, 2)
	for _, client := range []string{"session-a", "session-b"} {
		go func() {
			res, err := n.svc.ConnectFrom(e.ctx, other, "acme", "", client)
			if err != nil {
				t.Error(err)
			}
			results <- res
		}()
	}
	if a, b := <-results, <-results; a != b || a.ConnectionID == uuid.Nil {
		t.Fatalf("concurrent connects answered %+v and %+v, want one attempt", a, b)
	}
}

// A wait on one replica completes when the callback lands on another: two Services, each with its
// own database handle, store, read-model runner and HTTP server, over one SQLite file; the bus
// carries the committed event from the second to the first.
func TestWaitCompletesFromAnotherReplica(t *testing.T) {
	e := newEnv(t, "basic")
	a := e.node(true)
	b := e.node(false)
	user := uuid.New()
	res, err := a.svc.Connect(e.ctx, user, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	waited := waitAsync(e.ctx, a, user, res.ConnectionID, time.Minute)
	c := b.browser(user)
	// The browser talks to replica b for both the redeem and the callback.
	link := strings.Replace(res.URL, e.publicURL, b.srv.URL, 1)
	status, body := b.redeem(c, link)
	if status != http.StatusOK {
		t.Fatalf("redeem on b: %d %v", status, body)
	}
	resp, err := c.Get(body["url"])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cb, _ := url.Parse(resp.Header.Get("Location"))
	bURL, _ := url.Parse(b.srv.URL)
	cb.Host = bURL.Host
	if back := b.follow(c, cb.String()); back.Query().Get("connected") != "acme" {
		t.Fatalf("callback on b redirected to %s", back)
	}
	select {
	case w := <-waited:
		if w.status != connections.StatusConnected || w.err != nil {
			t.Fatalf("wait on a: %q %v", w.status, w.err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the wait on replica a did not complete")
	}
	// Read-your-writes on a: the read model there already holds the connection.
	if conn, err := a.svc.Connected(e.ctx, user); err != nil || !conn["acme"] {
		t.Fatalf("Connected on a: %v %v", conn, err)
	}
}

func TestConnectRefusals(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	cases := []struct {
		integration string
		code        domain.Code
		mentions    string
	}{
		{"keyed", domain.CodeInvalid, "portal"},
		{"free", domain.CodeInvalid, "always connected"},
		{"nosuch", domain.CodeNotFound, `"nosuch"`},
	}
	for _, tc := range cases {
		t.Run(tc.integration, func(t *testing.T) {
			_, err := n.svc.Connect(e.ctx, uuid.New(), tc.integration, "")
			if domain.ErrorCode(err) != tc.code || !strings.Contains(domain.ErrorMessage(err), tc.mentions) {
				t.Fatalf("got %v, want %s mentioning %s", err, tc.code, tc.mentions)
			}
		})
	}
	t.Run("oauth2 without a client id", func(t *testing.T) {
		e.clients = nil
		m := e.node(false)
		_, err := m.svc.Connect(e.ctx, uuid.New(), "acme", "")
		if domain.ErrorCode(err) != domain.CodeUnavailable || !strings.Contains(domain.ErrorMessage(err), "ACME_CLIENT_ID") {
			t.Fatalf("%v", err)
		}
	})
}

func TestAPIKeyAndDisconnect(t *testing.T) {
	e := newEnv(t, "basic")
	n := e.node(true)
	user := uuid.New()
	keyed, _ := e.catalog.Integration("keyed")
	if _, err := n.svc.Access(e.ctx, user, keyed, ""); domain.ErrorCode(err) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(err), "portal") {
		t.Fatalf("before connecting: %v", err)
	}
	post := func(c *http.Client, body string, headers map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, n.srv.URL+"/api/integrations/keyed/apikey", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	c := n.browser(user)
	same := map[string]string{"Origin": e.publicURL}
	cases := []struct {
		name    string
		body    string
		headers map[string]string
		status  int
	}{
		{"unknown field", `{"fields":{"api_key":"k1","token":"x"}}`, same, http.StatusBadRequest},
		{"missing required field", `{"fields":{"region":"eu"}}`, same, http.StatusBadRequest},
		{"control character", `{"fields":{"api_key":"a\nb"}}`, same, http.StatusBadRequest},
		{"no origin, no CSRF header", `{"fields":{"api_key":"k1"}}`, nil, http.StatusForbidden},
		{"CSRF header", `{"fields":{"api_key":"first-key"}}`, map[string]string{"X-Workbench-CSRF": "1"}, http.StatusNoContent},
		{"replaced", `{"fields":{"api_key":"the-key","region":"eu"}}`, same, http.StatusNoContent},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := post(c, tc.body, tc.headers); got != tc.status {
				t.Fatalf("status %d, want %d", got, tc.status)
			}
		})
	}
	acc, err := n.svc.Access(e.ctx, user, keyed, "")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, e.provider.srv.URL+"/x", nil)
	if err := acc.Injector.Inject(e.ctx, req); err != nil || req.Header.Get("X-Api-Key") != "the-key" || acc.GetToken != nil {
		t.Fatalf("injected %q: %v", req.Header.Get("X-Api-Key"), err)
	}
	assertNotStored(t, n, "the-key")

	del, _ := http.NewRequest(http.MethodDelete, n.srv.URL+"/api/integrations/keyed", nil)
	del.Header.Set("Origin", e.publicURL)
	resp, err := c.Do(del)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("disconnect: %d %q, want 204 and no body", resp.StatusCode, body)
	}
	if _, err := n.svc.Access(e.ctx, user, keyed, ""); domain.ErrorCode(err) != domain.CodeNotConnected {
		t.Fatalf("after disconnecting: %v", err)
	}
	if conn, _ := n.svc.Connected(e.ctx, user); conn["keyed"] {
		t.Fatal("still connected after disconnecting")
	}
}

func TestSweep(t *testing.T) {
	e := newEnv(t, "basic")
	e.opts = func(c *connections.Config) {
		c.LinkTTL = time.Second
		c.Retention = time.Second
		c.SweepInterval = time.Hour
	}
	n := e.node(true)
	user := uuid.New()
	res, err := n.svc.Connect(e.ctx, user, "acme", "")
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if err := n.svc.Sweep(e.ctx); err != nil {
		t.Fatal(err)
	}
	row, err := n.reader.Attempt(e.ctx, res.ConnectionID)
	if err != nil || row.Outcome != "expired" || row.Reason != "expired" {
		t.Fatalf("after the sweep: %+v %v", row, err)
	}
	if s, err := n.svc.WaitForConnection(e.ctx, user, res.ConnectionID, time.Second); s != connections.StatusExpired || err != nil {
		t.Fatalf("within retention: %q %v", s, err)
	}
	time.Sleep(1100 * time.Millisecond)
	if err := n.svc.Sweep(e.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := n.reader.Attempt(e.ctx, res.ConnectionID); err == nil {
		t.Fatal("the attempt was not pruned after the retention")
	}
	if _, err := n.svc.WaitForConnection(e.ctx, user, res.ConnectionID, time.Second); domain.ErrorMessage(err) != "Unknown connectionId" {
		t.Fatalf("after pruning: %v", err)
	}
}
