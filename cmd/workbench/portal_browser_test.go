package main

// The portal driven in real headless Chromium (go-rod, never a downloaded browser): sign in with the
// one-time link, mint and rotate the API key, connect an OAuth integration against the httptest
// provider, connect an API-key integration through the form built from its manifest, open claim
// links (one made for this account, one for another), revoke an MCP client, read the activity, sign
// out. Every page is kept as a PNG under $WORKBENCH_SCREENSHOTS (default
// $TMPDIR/workbench-screenshots) and its path logged.

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/google/uuid"

	"github.com/workbench/workbench/internal/testenv"
)

// launchChromium starts the machine's Chromium headless, or skips when there is none.
func launchChromium(t *testing.T) *rod.Browser { return testenv.LaunchChromium(t) }

// tab is one browser page with the test's helpers. It records every script error, CSP or Trusted
// Types violation the page reports, and the test fails on any.
type tab struct {
	t    *testing.T
	p    *rod.Page
	dir  string
	base string

	mu       sync.Mutex
	problems []string
}

func openTab(t *testing.T, b *rod.Browser, base string) *tab {
	t.Helper()
	p, err := b.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SetViewport(&proto.EmulationSetDeviceMetricsOverride{Width: 1280, Height: 820, DeviceScaleFactor: 1}); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("WORKBENCH_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "workbench-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	tb := &tab{t: t, p: p, dir: dir, base: base}
	if err := (proto.LogEnable{}).Call(p); err != nil {
		t.Fatal(err)
	}
	if err := (proto.RuntimeEnable{}).Call(p); err != nil {
		t.Fatal(err)
	}
	go p.EachEvent(func(e *proto.LogEntryAdded) {
		// Network entries are the API's own 401s and 404s, which the app handles.
		if e.Entry.Level == proto.LogLogEntryLevelError && e.Entry.Source != proto.LogLogEntrySourceNetwork {
			tb.problem("log: " + e.Entry.Text)
		}
	}, func(e *proto.RuntimeExceptionThrown) {
		tb.problem("exception: " + e.ExceptionDetails.Text + " " + fmt.Sprint(e.ExceptionDetails.Exception.Description))
	}, func(e *proto.RuntimeConsoleAPICalled) {
		if e.Type == proto.RuntimeConsoleAPICalledTypeError {
			tb.problem("console.error")
		}
	})()
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("the page reported: %s", p)
		}
	})
	return tb
}

func (tb *tab) problem(s string) {
	tb.mu.Lock()
	tb.problems = append(tb.problems, s)
	tb.mu.Unlock()
}

func (tb *tab) page() *rod.Page { return tb.p.Timeout(20 * time.Second) }

func (tb *tab) open(path string) {
	tb.t.Helper()
	if err := tb.page().Navigate(tb.base + path); err != nil {
		tb.t.Fatalf("open %s: %v", path, err)
	}
	if err := tb.page().WaitLoad(); err != nil {
		tb.t.Fatalf("load %s: %v", path, err)
	}
}

// el waits for selector (and, when text is set, for an element matching it whose text matches the
// regular expression text).
func (tb *tab) el(selector, text string) *rod.Element {
	tb.t.Helper()
	var e *rod.Element
	var err error
	if text == "" {
		e, err = tb.page().Element(selector)
	} else {
		e, err = tb.page().ElementR(selector, text)
	}
	if err != nil {
		body, _ := tb.p.Timeout(2 * time.Second).Element("body")
		var txt string
		if body != nil {
			txt, _ = body.Text()
		}
		tb.t.Fatalf("no %s matching /%s/ on %s: %v\npage text:\n%s", selector, text, tb.url(), err, txt)
	}
	return e
}

func (tb *tab) click(selector, text string) {
	tb.t.Helper()
	if err := tb.el(selector, text).Click(proto.InputMouseButtonLeft, 1); err != nil {
		tb.t.Fatalf("click %s: %v", selector, err)
	}
}

func (tb *tab) text(selector string) string {
	tb.t.Helper()
	s, err := tb.el(selector, "").Text()
	if err != nil {
		tb.t.Fatal(err)
	}
	return s
}

func (tb *tab) value(selector string) string {
	tb.t.Helper()
	v, err := tb.el(selector, "").Property("value")
	if err != nil {
		tb.t.Fatal(err)
	}
	return v.String()
}

func (tb *tab) url() string {
	info, err := tb.p.Info()
	if err != nil {
		return "?"
	}
	return info.URL
}

// waitURL waits until the page's URL (without the origin) matches re.
func (tb *tab) waitURL(re string) string {
	tb.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for {
		u := strings.TrimPrefix(tb.url(), tb.base)
		if rx.MatchString(u) {
			return u
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("the page is at %s, want /%s/", u, re)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shot keeps a full-page screenshot named name.png.
func (tb *tab) shot(name string) {
	tb.t.Helper()
	_ = tb.p.Timeout(3 * time.Second).WaitStable(300 * time.Millisecond)
	// A full-page capture of a long page on a loaded machine takes seconds: bounded, but generously.
	png, err := tb.p.Timeout(30*time.Second).Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		tb.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(tb.dir, "portal-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.t.Fatal(err)
	}
	tb.t.Logf("screenshot: %s", path)
}

// writeBeaconPlugin writes an API-key integration with a secret and an optional field.
func writeBeaconPlugin(t *testing.T, dir string) {
	t.Helper()
	manifest := `{"name":"beacon","version":"1.0.0","display_name":"Beacon","description":"A test API-key integration: status pages and uptime checks.",
		"categories":["monitoring"],"base_url":"https://api.beacon.example",
		"auth":{"mode":"apikey","apikey":{"fields":[
			{"name":"api_key","label":"Beacon API key","secret":true,"placeholder":"bk_..."},
			{"name":"region","label":"Region","optional":true,"placeholder":"eu"}],
			"inject":{"in":"header","name":"X-Beacon-Key","field":"api_key"}}}}`
	tools := `[{"name":"beacon_status","description":"The status of every Beacon check.",
		"input_schema":{"type":"object","properties":{},"additionalProperties":false},
		"http":{"method":"GET","path":"/status"}}]`
	d := filepath.Join(dir, "beacon")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"manifest.json": manifest, "tools.json": tools} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpStatus posts an MCP initialize with key as Bearer and returns the status.
func mcpStatus(t *testing.T, base, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	resp.Body.Close()
	return resp.StatusCode
}

func TestPortalInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	provider := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, provider)
	writeBeaconPlugin(t, plugDir)
	writeUnsetPlugin(t, plugDir)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"PLUGINS_DIR":                  plugDir,
		"WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"ACME_CLIENT_ID":               acmeClientID,
		"ACME_CLIENT_SECRET":           acmeClientSecret,
	}, slog.LevelInfo)
	provider.register(srv.Base + "/api/auth/plugin/acme/callback")
	tb := openTab(t, browser, srv.Base)
	var user uuid.UUID

	t.Run("signed out, a page sends you to sign in", func(t *testing.T) {
		tb.t = t
		tb.open("/key")
		if u := tb.waitURL(`^/signin\?next=`); u != "/signin?next=%2Fkey" {
			t.Fatalf("redirected to %s", u)
		}
		tb.el(`[data-testid=one-time-link-help]`, `one-time sign-in link`)
		tb.shot("signin")
	})

	t.Run("sign in with the one-time link", func(t *testing.T) {
		tb.t = t
		link := startupSignInLink(t, srv)
		tb.open(strings.TrimPrefix(link, srv.Base))
		tb.waitURL(`^/$`)
		who := tb.text(`[data-testid=signed-in-as]`)
		// The startup link signs in WORKBENCH_ADMIN_EMAIL (default admin@workbench.localhost); the
		// sidebar may shorten it.
		if !strings.Contains(strings.ToLower(who), "signed in as") || !strings.Contains(who, "admin@workbench.l") {
			t.Fatalf("the sidebar says %q", who)
		}
		tb.el(`article[data-integration=acme]`, "Acme")
		tb.shot("integrations")
		{ // the sign-in link names its own user: learn who from the page's session
			var me struct{ ID uuid.UUID }
			raw, err := tb.p.Timeout(10 * time.Second).Eval(`() => fetch('/api/me').then(r => r.text())`)
			if err != nil || json.Unmarshal([]byte(raw.Value.Str()), &me) != nil {
				t.Fatalf("/api/me from the page: %v %v", err, raw)
			}
			user = me.ID
		}
	})
	if user == uuid.Nil {
		t.Fatal("not signed in; the rest cannot run")
	}

	var firstKey string
	t.Run("mint the API key", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `API key`)
		tb.waitURL(`^/key$`)
		tb.el(`.empty`, `no API key yet`)
		tb.shot("apikey-empty")
		tb.click(`[data-testid=mint-key]`, "")
		tb.el(`.notice-success`, `API key is ready`)
		firstKey = tb.value(`[data-testid=secret]`)
		if !strings.HasPrefix(tb.text(`[data-testid=key-prefix]`), firstKey[:6]) {
			t.Fatalf("prefix %q does not start the key", tb.text(`[data-testid=key-prefix]`))
		}
		if s := mcpStatus(t, srv.Base, firstKey); s == http.StatusUnauthorized {
			t.Fatalf("the minted key is refused at /mcp")
		}
		tb.shot("apikey-minted")
	})

	t.Run("rotate the API key", func(t *testing.T) {
		tb.t = t
		tb.click(`[data-testid=rotate-key]`, "")
		tb.el(`dialog[open]`, `stops working at once`)
		tb.shot("apikey-rotate-confirm")
		tb.click(`[data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `Key rotated`)
		second := tb.value(`[data-testid=secret]`)
		if second == firstKey || second == "" {
			t.Fatalf("the key after rotation is %q", second)
		}
		if s := mcpStatus(t, srv.Base, firstKey); s != http.StatusUnauthorized {
			t.Fatalf("the old key answers %d at /mcp after rotation, want 401", s)
		}
		if s := mcpStatus(t, srv.Base, second); s == http.StatusUnauthorized {
			t.Fatal("the new key is refused at /mcp")
		}
		tb.click(`[data-testid=reveal-key]`, "")
		if got := tb.value(`[data-testid=secret]`); got != second {
			t.Fatalf("reveal shows %q, want the rotated key", got)
		}
		tb.shot("apikey-rotated")
	})

	t.Run("connect an OAuth integration", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Integrations`)
		tb.click(`article[data-integration=acme] [data-testid=connect]`, "")
		// The provider consents at once and sends the browser to the callback, which sends it home.
		tb.waitURL(`^/(integrations)?$`)
		tb.el(`.notice-success`, `Acme is connected`)
		waitConnected(t, srv, user, "acme")
		tb.open("/integrations")
		tb.el(`article[data-integration=acme] [data-testid=status]`, `^Connected$`)
		// An integration that needs no account offers nothing to disconnect.
		tb.el(`article[data-integration=utils]`, `Always available`)
		if has, _, _ := tb.p.Has(`article[data-integration=utils] [data-testid=disconnect]`); has {
			t.Error("the no-sign-in integration offers Disconnect")
		}
		tb.shot("integrations-connected")
		if provider.exchanges() != 1 {
			t.Fatalf("the provider saw %d code exchanges, want 1", provider.exchanges())
		}
	})

	t.Run("an OAuth integration whose client is not set", func(t *testing.T) {
		tb.t = t
		tb.open("/integrations")
		card := `article[data-integration=gamma]`
		tb.el(card+` [data-testid=not-set-up]`, `Not set up on this server`)
		tb.el(card+` [data-testid=not-set-up]`, `GAMMA_CLIENT_ID`)
		// The signed-in user is the instance admin: the platform key to set, with a link to set it.
		tb.el(card+` [data-testid=not-set-up]`, `integration:gamma`)
		tb.el(card+` [data-testid=set-up-key]`, `Set the platform key integration:gamma`)
		if has, _, _ := tb.p.Has(card + ` [data-testid=connect]`); has {
			t.Error("an integration the server cannot connect offers Connect")
		}
		tb.shot("integrations-not-set-up")
	})

	t.Run("a long error notice wraps inside its card", func(t *testing.T) {
		tb.t = t
		tb.open("/?connect_error=exchange_failed&integration=" + strings.Repeat("x", 300))
		tb.el(`.notice-error`, `was not connected`)
		fits, err := tb.page().Eval(`() => { const n = document.querySelector('.notice-error'); return n.scrollWidth <= n.clientWidth }`)
		if err != nil || !fits.Value.Bool() {
			t.Fatalf("the notice overflows: %v %v", err, fits)
		}
		tb.shot("integrations-long-error")
	})

	t.Run("a failed callback is explained", func(t *testing.T) {
		tb.t = t
		tb.open("/?connect_error=access_denied&integration=acme")
		tb.el(`.notice-error`, `did not grant access`)
		if u := tb.waitURL(`^/`); u != "/" {
			t.Fatalf("the outcome stays in the URL: %s", u)
		}
		tb.shot("integrations-connect-error")
	})

	t.Run("connect an API-key integration", func(t *testing.T) {
		tb.t = t
		tb.click(`article[data-integration=beacon] [data-testid=connect]`, "")
		form := `article[data-integration=beacon] [data-testid=apikey-form]`
		if typ, _ := tb.el(form+` input[name=api_key]`, "").Attribute("type"); typ == nil || *typ != "password" {
			t.Fatalf("the secret field is not a password input")
		}
		tb.el(form, `Region \(optional\)`)
		tb.click(form+` [data-testid=save-apikey]`, "")
		tb.el(form, `Fill in every required field`)
		if err := tb.el(form+` input[name=api_key]`, "").Input("bk_live_1234"); err != nil {
			t.Fatal(err)
		}
		tb.shot("integrations-apikey-form")
		tb.click(form+` [data-testid=save-apikey]`, "")
		tb.el(`.notice-success`, `Beacon is connected`)
		waitConnected(t, srv, user, "beacon")
	})

	t.Run("disconnect asks first", func(t *testing.T) {
		tb.t = t
		tb.open("/integrations")
		tb.click(`article[data-integration=beacon] [data-testid=disconnect]`, "")
		tb.el(`dialog[open]`, `Disconnect Beacon`)
		tb.click(`[data-testid=dialog-cancel]`, "")
		tb.click(`article[data-integration=beacon] [data-testid=disconnect]`, "")
		tb.click(`[data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `Beacon is disconnected`)
		connected, err := srv.M.Credentials.Connected(context.Background(), user)
		if err != nil || connected["beacon"] {
			t.Fatalf("beacon still connected: %v %v", connected, err)
		}
	})

	t.Run("a claim link made for another account", func(t *testing.T) {
		tb.t = t
		bob := srv.user(t, "bob@example.com")
		res, err := srv.M.Credentials.Connect(context.Background(), bob.ID, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		tb.open(strings.TrimPrefix(res.URL, srv.Base))
		tb.el(`[data-testid=account-mismatch]`, `made for another workbench account`)
		tb.shot("connect-account-mismatch")
	})

	t.Run("a claim link made for this account", func(t *testing.T) {
		tb.t = t
		before := provider.exchanges()
		res, err := srv.M.Credentials.Connect(context.Background(), user, "acme", "")
		if err != nil {
			t.Fatal(err)
		}
		tb.open(strings.TrimPrefix(res.URL, srv.Base))
		tb.waitURL(`^/(integrations)?$`)
		tb.el(`.notice-success`, `Acme is connected`)
		if provider.exchanges() != before+1 {
			t.Fatal("the claim link did not lead to a code exchange")
		}
		tb.open("/connect/not-a-real.link")
		tb.el(`.notice-error`, `not valid`)
	})

	t.Run("revoke an MCP client", func(t *testing.T) {
		tb.t = t
		name, afterRevoke := seedMCPClient(t, tb, srv.Base)
		tb.open("/clients")
		row := `tr[data-client]`
		tb.el(row, regexp.QuoteMeta(name))
		tb.shot("clients")
		tb.click(row+` [data-testid=revoke-client]`, "")
		tb.el(`dialog[open]`, `keep working until they expire`)
		tb.shot("clients-revoke-confirm")
		tb.click(`[data-testid=dialog-confirm]`, "")
		tb.el(`.notice-success`, `was revoked`)
		tb.el(`.empty`, `No MCP clients have access`)
		tb.shot("clients-empty")
		afterRevoke(t)
	})

	t.Run("activity, newest first", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Activity`)
		first := tb.el(`.timeline .event`, "")
		txt, _ := first.Text()
		if !strings.Contains(txt, "Connected Acme") {
			t.Errorf("the newest record reads %q, want the last connection", txt)
		}
		tb.el(`.timeline`, `Rotated the API key`)
		tb.el(`.timeline`, `Created an API key`)
		tb.shot("activity")
	})

	t.Run("unknown page", func(t *testing.T) {
		tb.t = t
		tb.open("/no/such/page")
		tb.el(`h1`, `There is no page here`)
	})

	t.Run("sign out", func(t *testing.T) {
		tb.t = t
		tb.open("/integrations")
		tb.click(`[data-testid=sign-out]`, "")
		tb.waitURL(`^/signin`)
		tb.open("/clients")
		tb.waitURL(`^/signin\?next=%2Fclients$`)
	})
	tb.t = t
}

// writeUnsetPlugin adds "gamma", an OAuth integration whose client (GAMMA_CLIENT_ID) the test server
// does not set.
func writeUnsetPlugin(t *testing.T, dir string) {
	t.Helper()
	d := filepath.Join(dir, "gamma")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"manifest.json": `{"name":"gamma","version":"1.0.0","display_name":"Gamma","description":"An OAuth integration without its client.",
			"base_url":"https://gamma.example","auth":{"mode":"oauth2","oauth2":{"authorize_url":"https://gamma.example/authorize","token_url":"https://gamma.example/token"}}}`,
		"tools.json": `[]`,
	} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// waitConnected waits until the connections read model says integration is connected for user.
func waitConnected(t *testing.T, srv *e2eServer, user uuid.UUID, integration string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := srv.M.Credentials.Connected(context.Background(), user)
		if err == nil && c[integration] {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became connected: %v %v", integration, c, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// seedMCPClient gives user an MCP client holding a live refresh token and returns its name and a
// check, run after the revocation, that the client can no longer refresh.
func seedMCPClient(t *testing.T, tb *tab, base string) (string, func(t *testing.T)) {
	t.Helper()
	const name = "Claude Desktop"
	// The OAuth server is mounted: the client registers (RFC 7591), the signed-in browser consents
	// (PKCE S256, RFC 7636), and the client exchanges the code for a refresh token.
	codes := make(chan string, 1)
	catcher := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case codes <- r.URL.Query().Get("code"):
		default:
		}
		io.WriteString(w, "ok") //nolint:errcheck
	}))
	t.Cleanup(catcher.Close)
	redirect := catcher.URL + "/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	resp, err := http.Post(base+"/oauth/register", "application/json", strings.NewReader(string(reg)))
	if err != nil {
		t.Fatal(err)
	}
	var client struct {
		ClientID string `json:"client_id"`
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &client) != nil || client.ClientID == "" {
		t.Fatalf("register: %d %s", resp.StatusCode, body)
	}
	verifier := strings.ReplaceAll(uuid.NewString()+uuid.NewString(), "-", "")
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"state": {"s-" + uuid.NewString()}, "scope": {"mcp offline_access"}, "resource": {base + "/mcp"}}
	tb.open("/oauth/authorize?" + q.Encode())
	tb.el(`body`, regexp.QuoteMeta(name))
	tb.shot("oauth-consent")
	tb.click(`button[name=decision][value=allow]`, "")
	var code string
	select {
	case code = <-codes:
	case <-time.After(20 * time.Second):
		t.Fatalf("the consent never came back to the client (page at %s)", tb.url())
	}
	token := func(form url.Values) (int, map[string]any) {
		resp, err := http.PostForm(base+"/oauth/token", form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out := map[string]any{}
		json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // the status says what went wrong
		return resp.StatusCode, out
	}
	status, grant := token(url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect},
		"client_id": {client.ClientID}, "code_verifier": {verifier}, "resource": {base + "/mcp"}})
	refresh, _ := grant["refresh_token"].(string)
	if status != http.StatusOK || refresh == "" {
		t.Fatalf("code exchange: %d %v", status, grant)
	}
	return name, func(t *testing.T) {
		status, out := token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {client.ClientID}, "resource": {base + "/mcp"}})
		if status == http.StatusOK {
			t.Fatalf("the revoked client still refreshes: %v", out)
		}
	}
}

// TestPortalFallbackRules checks, over HTTP against the served instance, that the app only answers
// genuine client routes.
func TestPortalFallbackRules(t *testing.T) {
	t.Parallel()
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelWarn)
	tests := []struct {
		name, method, path string
		status             int
		contentType        string
	}{
		{"unknown API path", "GET", "/api/nope", 404, "application/json"},
		{"unknown API path, POST", "POST", "/api/apikey/nope", 404, "application/json"},
		{"a client route", "GET", "/integrations", 200, "text/html"},
		{"the claim link route", "GET", "/connect/abc.def", 200, "text/html"},
		{"a file-like path", "GET", "/robots.txt", 404, "text/plain"},
		{"the health check still wins", "GET", "/healthz", 200, "application/json"},
		{"the MCP endpoint is not the app", "GET", "/mcp", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.Base+tt.path, nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if tt.status == 0 {
				if strings.Contains(string(body), `<div id="app"`) {
					t.Fatalf("%s answered with the app", tt.path)
				}
				return
			}
			if resp.StatusCode != tt.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tt.contentType) {
				t.Fatalf("%s %s: %d %s\n%s", tt.method, tt.path, resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if tt.contentType == "application/json" && tt.status == 404 {
				var e struct{ Error string }
				if json.Unmarshal(body, &e) != nil || e.Error != "not_found" {
					t.Fatalf("body %s", body)
				}
			}
		})
	}
}

// startupSignInLink is the one-time sign-in URL the server printed in its log at start.
func startupSignInLink(t *testing.T, srv *e2eServer) string {
	t.Helper()
	logs := srv.logs.tail(1 << 20)
	i := strings.Index(logs, "/auth/link/")
	if i < 0 {
		t.Fatalf("the server printed no one-time sign-in link:\n%s", logs)
	}
	end := i + len("/auth/link/")
	for end < len(logs) && strings.IndexByte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~", logs[end]) >= 0 {
		end++
	}
	return srv.Base + logs[i:end]
}
