package main

// End-to-end test of several accounts per integration: one user connects two accounts of an API-key
// integration (through the portal's form) and two of an OAuth one (through connect, the claim link and
// the provider's consent), and an agent runs each integration's tool on each account by label and on
// the default without one, over MCP with the official Go SDK. The fake API and the fake OAuth provider
// record which credential each call carried.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

// keyAPI is the API-key integration's provider: GET /whoami answers the login its X-Api-Key names,
// and 401 for a key it does not know.
type keyAPI struct {
	srv    *httptest.Server
	logins map[string]string
	mu     sync.Mutex
	seen   []string
}

func newKeyAPI(t *testing.T, logins map[string]string) *keyAPI {
	a := &keyAPI{logins: logins}
	a.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("X-Api-Key")
		a.mu.Lock()
		a.seen = append(a.seen, key)
		a.mu.Unlock()
		login, ok := a.logins[key]
		if r.URL.Path != "/whoami" || !ok {
			http.Error(w, `{"message":"bad key"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"login":%q}`, login)
	}))
	t.Cleanup(a.srv.Close)
	return a
}

func (a *keyAPI) last() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.seen) == 0 {
		return ""
	}
	return a.seen[len(a.seen)-1]
}

func TestSeveralAccountsEndToEndSQLite(t *testing.T) {
	t.Parallel()
	runAccountsSuite(t, filepath.Join(t.TempDir(), "wb.db"))
}

func TestSeveralAccountsEndToEndPostgres(t *testing.T) {
	t.Parallel()
	runAccountsSuite(t, testenv.PostgresURL(t))
}

func runAccountsSuite(t *testing.T, databaseURL string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := newOAuthProvider(t)
	p.Set(func(s *testenv.OAuthSettings) { s.ExpiresIn = 3600 }) // no refresh in the middle: each call shows its grant's token
	keys := newKeyAPI(t, map[string]string{"k-personal": "ada-personal", "k-work": "ada-at-work"})
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	d := filepath.Join(plugDir, "keyed")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d, "manifest.json"), []byte(fmt.Sprintf(`{"name":"keyed","version":"1.0.0","display_name":"Keyed","description":"A test API-key integration.",
		"base_url":%q,"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true}],"inject":{"in":"header","name":"X-Api-Key"}}}}`, keys.srv.URL)), 0o644)
	os.WriteFile(filepath.Join(d, "tools.json"), []byte(`[{"name":"keyed_whoami","description":"Who the key belongs to.",
		"input_schema":{"type":"object","properties":{},"additionalProperties":false},"http":{"method":"GET","path":"/whoami","response":{"fields":["login"]}}}]`), 0o644)
	srv := startE2E(t, databaseURL, map[string]string{
		"PLUGINS_DIR": plugDir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "ACME_CLIENT_ID": acmeClientID, "ACME_CLIENT_SECRET": acmeClientSecret,
	}, slog.LevelInfo)
	p.register(srv.Base + "/api/auth/plugin/acme/callback")
	e := &mcpEnv{srv: srv, provider: p, endpoint: srv.Base + "/mcp", callbackU: srv.Base + "/api/auth/plugin/acme/callback",
		ada: srv.user(t, "ada@example.com"), bob: srv.user(t, "bob@example.com")}
	ada, _ := e.connectSDK(t, e.ada.Key)
	defer ada.Close()
	portal := func(method, path string, body any) (int, string) {
		t.Helper()
		var rd *bytes.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		} else {
			rd = bytes.NewReader(nil)
		}
		req, _ := http.NewRequestWithContext(ctx, method, srv.Base+path, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Origin", srv.Base)
		cookie, err := srv.M.Sessions.Cookie(e.ada.ID)
		if err != nil {
			t.Fatal(err)
		}
		req.AddCookie(cookie)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out bytes.Buffer
		out.ReadFrom(resp.Body) //nolint:errcheck // the status says what went wrong
		return resp.StatusCode, out.String()
	}

	// Two API keys from the portal's form: the first without a label (it becomes "default"), the
	// second as "work". A malformed label is refused and stores nothing.
	if status, body := portal(http.MethodPost, "/api/integrations/keyed/apikey", map[string]any{"fields": map[string]string{"api_key": "k-personal"}}); status != http.StatusNoContent {
		t.Fatalf("first key: %d %s", status, body)
	}
	if status, body := portal(http.MethodPost, "/api/integrations/keyed/apikey", map[string]any{"fields": map[string]string{"api_key": "k-work"}, "account": "work"}); status != http.StatusNoContent {
		t.Fatalf("work key: %d %s", status, body)
	}
	if status, body := portal(http.MethodPost, "/api/integrations/keyed/apikey?account=Not%20Valid", map[string]any{"fields": map[string]string{"api_key": "k-x"}}); status != http.StatusBadRequest {
		t.Fatalf("a malformed label: %d %s, want 400", status, body)
	}

	// Two OAuth accounts through connect: the default one, then "work".
	grants := map[string]string{} // label -> the access token its consent issued
	for _, label := range []string{"", "work"} {
		args := map[string]any{"integration": "acme"}
		if label != "" {
			args["account"] = label
		}
		var started struct{ ConnectionID, Type, URL string }
		call(t, ada, "connect", args, &started)
		browser := e.browser(t, e.ada.ID)
		status, body := e.redeem(t, browser, started.URL)
		wantAccount := label
		if wantAccount == "" {
			wantAccount = connection.DefaultAccount
		}
		if status != http.StatusOK || body["account"] != wantAccount {
			t.Fatalf("redeem %q: %d %v", label, status, body)
		}
		resp, err := browser.Get(body["url"])
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		resp, err = browser.Get(resp.Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if back, _ := url.Parse(resp.Header.Get("Location")); back == nil || back.Query().Get("connected") != "acme" {
			t.Fatalf("callback for %q: %d %q", label, resp.StatusCode, resp.Header.Get("Location"))
		}
		var waited map[string]string
		call(t, ada, "wait_for_connection", map[string]any{"connectionId": started.ConnectionID, "timeout_seconds": 30}, &waited)
		if waited["status"] != "CONNECTED" {
			t.Fatalf("wait for %q: %v", label, waited)
		}
		issued := p.Issued()
		grants[wantAccount] = issued[len(issued)-1].Access
	}
	if grants["default"] == "" || grants["default"] == grants["work"] {
		t.Fatalf("grants %v: want two different tokens", grants)
	}

	// list_integrations shows both accounts of each, the first the default.
	listAccounts := func() map[string][]map[string]any {
		t.Helper()
		var out struct {
			Integrations []struct {
				Name     string           `json:"name"`
				Accounts []map[string]any `json:"accounts"`
			} `json:"integrations"`
		}
		call(t, ada, "list_integrations", map[string]any{}, &out)
		m := map[string][]map[string]any{}
		for _, in := range out.Integrations {
			m[in.Name] = in.Accounts
		}
		return m
	}
	for _, name := range []string{"keyed", "acme"} {
		acc := listAccounts()[name]
		if len(acc) != 2 || acc[0]["label"] != "default" || acc[0]["default"] != true || acc[1]["label"] != "work" || acc[1]["default"] != false ||
			acc[0]["status"] != "connected" || acc[1]["status"] != "connected" {
			t.Fatalf("%s's accounts in list_integrations: %v", name, acc)
		}
	}

	// The same tool on each account by label, and on the default without one: the provider sees the
	// account's own credential.
	run := func(tool, account string) map[string]json.RawMessage {
		t.Helper()
		x := ex(tool, nil)
		if account != "" {
			x["account"] = account
		}
		return execute(t, ada, x).Results[0]
	}
	login := func(r map[string]json.RawMessage) string {
		var v struct {
			Login string `json:"login"`
		}
		json.Unmarshal(r["result"], &v) //nolint:errcheck // an error result has no login
		return v.Login
	}
	for _, c := range []struct{ account, login, key string }{{"", "ada-personal", "k-personal"}, {"default", "ada-personal", "k-personal"}, {"work", "ada-at-work", "k-work"}} {
		if r := run("keyed_whoami", c.account); login(r) != c.login || keys.last() != c.key {
			t.Errorf("keyed_whoami on %q: %s, the API saw %q; want %s with %s", c.account, r["result"], keys.last(), c.login, c.key)
		}
	}
	for _, c := range []struct{ account, grant string }{{"", "default"}, {"work", "work"}, {"default", "default"}} {
		r := run("acme_profile", c.account)
		seen := p.SeenTokens()
		if _, failed := r["error"]; failed || len(seen) == 0 || seen[len(seen)-1] != grants[c.grant] {
			t.Errorf("acme_profile on %q: %v; the provider saw %q, want the %s grant's token", c.account, r, seen[len(seen)-1:], c.grant)
		}
	}
	// An unknown label is NOT_CONNECTED naming the labels that exist; nothing reaches the provider.
	before := len(p.SeenTokens())
	r := run("acme_profile", "personal")
	var code, msg string
	json.Unmarshal(r["error"], &code)  //nolint:errcheck // checked below
	json.Unmarshal(r["message"], &msg) //nolint:errcheck // checked below
	if code != "NOT_CONNECTED" || !strings.Contains(msg, "default, work") {
		t.Errorf("an unknown label: %s %s", r["error"], r["message"])
	}
	if len(p.SeenTokens()) != before {
		t.Error("a call on an unknown account reached the provider")
	}
	// Each record names the account a call used (the default label stays unnamed, as in every record
	// before accounts existed).
	var work, unnamed, personal int
	for _, env := range srv.events(t, execution.TypeToolExecuted) {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev) //nolint:errcheck // a malformed record fails the counts
		switch {
		case ev.Account == "work":
			work++
		case ev.Account == "" && ev.Success:
			unnamed++
		case ev.Account == "personal" && ev.ErrorCode == "NOT_CONNECTED":
			personal++
		}
	}
	if work != 2 || unnamed != 4 || personal != 1 {
		t.Errorf("records: %d name work, %d successful name none, %d refused name personal; want 2, 4 and 1", work, unnamed, personal)
	}

	// Receipts are per account: work's timeline holds work's runs only, and the summary counts both.
	runs := srv.settledEvents(t, execution.TypeToolExecuted, 7)
	srv.waitFor(t, runs[len(runs)-1].Position)
	if status, body := portal(http.MethodGet, "/api/audit/receipts?integration=keyed&account=work", nil); status != http.StatusOK ||
		strings.Count(body, `"kind":"tool_executed"`) != 1 || strings.Count(body, `"account":"work"`) < 2 {
		t.Errorf("work's receipts of keyed: %d %s", status, body)
	}
	if status, body := portal(http.MethodGet, "/api/audit/receipts/summary?integration=keyed", nil); status != http.StatusOK ||
		!strings.Contains(body, `"accounts":{"default":2,"work":1}`) {
		t.Errorf("keyed's receipts summary: %d %s", status, body)
	}
	if status, _ := portal(http.MethodGet, "/api/audit/receipts?integration=keyed&account=Bad.Label", nil); status != http.StatusBadRequest {
		t.Errorf("receipts with a malformed label: %d, want 400", status)
	}

	// The user makes "work" the default of keyed: a call without a label uses it.
	if status, body := portal(http.MethodPost, "/api/integrations/keyed/default", map[string]string{"account": "work"}); status != http.StatusNoContent {
		t.Fatalf("choose work: %d %s", status, body)
	}
	if r := run("keyed_whoami", ""); login(r) != "ada-at-work" {
		t.Errorf("keyed_whoami on the new default: %s", r["result"])
	}

	// Disconnecting acme's default account leaves "work" working, and the default now.
	if status, body := portal(http.MethodDelete, "/api/integrations/acme?account=default", nil); status != http.StatusNoContent {
		t.Fatalf("disconnect acme default: %d %s", status, body)
	}
	if r := run("acme_profile", ""); r["error"] != nil || p.SeenTokens()[len(p.SeenTokens())-1] != grants["work"] {
		t.Errorf("acme_profile without a label after the disconnect: %v", r)
	}
	if r := run("acme_profile", "default"); !strings.Contains(string(r["error"]), "NOT_CONNECTED") {
		t.Errorf("acme_profile on the disconnected account: %v", r)
	}
	if acc := listAccounts()["acme"]; len(acc) != 1 || acc[0]["label"] != "work" || acc[0]["default"] != true {
		t.Errorf("acme's accounts after the disconnect: %v", acc)
	}

	// Erasing ada shreds every account's credential: none of the sealed documents opens any more.
	var sealed []domain.Sealed
	for _, stream := range []string{
		connection.StreamName(e.ada.ID, "keyed", ""), connection.StreamName(e.ada.ID, "keyed", "work"),
		connection.StreamName(e.ada.ID, "acme", ""), connection.StreamName(e.ada.ID, "acme", "work"),
	} {
		envs, err := srv.M.Store.Load(ctx, stream, 0)
		if err != nil || len(envs) == 0 {
			t.Fatalf("load %s: %d events, %v", stream, len(envs), err)
		}
		for _, env := range envs {
			if env.Type != connection.TypeConnected {
				continue
			}
			var ev connection.Connected
			if err := json.Unmarshal(env.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if _, err := srv.M.Vault.Open(ctx, ev.Credential, connections.Purpose(ev.Integration)); err != nil {
				t.Fatalf("%s's credential does not open before the erasure: %v", stream, err)
			}
			sealed = append(sealed, ev.Credential)
		}
	}
	eraser, err := srv.M.eraser(srv.M.Runner)
	if err != nil {
		t.Fatal(err)
	}
	erased, err := eraser.EraseUser(ctx, "ada@example.com", eventstore.Metadata{Actor: "test"})
	if err != nil {
		t.Fatalf("erase ada: %v", err)
	}
	srv.waitFor(t, erased.Position)
	for i, s := range sealed {
		if _, err := srv.M.Vault.Open(ctx, s, connections.Purpose(map[bool]string{true: "keyed", false: "acme"}[i < 2])); err == nil {
			t.Errorf("credential %d still opens after the erasure", i)
		}
	}
	if !slices.Contains([]int{4}, len(sealed)) {
		t.Errorf("%d sealed credentials, want 4", len(sealed))
	}
}
