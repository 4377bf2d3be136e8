package main

// End-to-end tests of /mcp: Main served on a loopback listener (SQLite in a temp dir, and PostgreSQL
// through internal/testenv), driven by the official MCP Go SDK client with an API key as Bearer token,
// a test OAuth plugin in a temp PLUGINS_DIR, and an httptest OAuth provider that checks PKCE S256, the
// code exchange and the refresh grant.

import (
	"context"
	"encoding/json"
	"errors"
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

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
)

const (
	acmeClientID     = "acme-client"
	acmeClientSecret = "acme-secret"
	// acmeFirstExpiresIn is the lifetime of the token the code exchange issues: a little over the
	// 30-second refresh window, so the first call uses it as is and a call a few seconds later must
	// refresh it. Refreshed tokens live an hour.
	acmeFirstExpiresIn = 33
	acmeRefreshWindow  = 30 * time.Second
)

// oauthProvider is the test environment's fake OAuth provider as acme's authorization server and
// API: one confidential client authenticating by HTTP Basic, authorization requests carrying scope
// "profile offline", a first token announced to live acmeFirstExpiresIn seconds and refreshed ones
// an hour, and GET /api/profile answering a live token.
type oauthProvider struct {
	*testenv.OAuthProvider
	srv *httptest.Server
}

func newOAuthProvider(t *testing.T) *oauthProvider {
	p := &oauthProvider{OAuthProvider: testenv.NewOAuthProvider(t)}
	p.srv = p.Server()
	p.Set(func(s *testenv.OAuthSettings) {
		s.Expect = map[string]string{"scope": "profile offline"}
		s.ExpiresIn, s.RefreshedExpiresIn = acmeFirstExpiresIn, 3600
		s.API = map[string]string{"/api/profile": `{"login":"ada-at-acme","plan":"pro","internal":"dropped by the response shape"}`}
	})
	return p
}

// register makes acme's client known with the served instance's callback as its redirect URI.
func (p *oauthProvider) register(redirect string) {
	p.AddClient(testenv.OAuthClient{ID: acmeClientID, Secret: acmeClientSecret, RedirectURIs: []string{redirect}, Auth: testenv.AuthBasic})
}

func (p *oauthProvider) exchanges() int64 { return int64(p.Exchanges()) }
func (p *oauthProvider) refreshes() int64 { return int64(p.Refreshes()) }

// seenTokens returns the Bearer tokens the API has received so far.
func (p *oauthProvider) seenTokens() []string { return p.SeenTokens() }

// firstGrant is when the code exchange issued its token (zero before).
func (p *oauthProvider) firstGrant() time.Time {
	if issued := p.Issued(); len(issued) > 0 {
		return issued[0].At
	}
	return time.Time{}
}

// writeAcmePlugin writes the acme OAuth plugin, pointed at the provider, into dir/acme.
func writeAcmePlugin(t *testing.T, dir string, p *oauthProvider) {
	t.Helper()
	manifest := fmt.Sprintf(`{"name":"acme","version":"1.0.0","display_name":"Acme","description":"A test OAuth integration.",
		"categories":["testing"],"base_url":%q,
		"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q,"scopes":["profile","offline"]}}}`,
		p.srv.URL, p.srv.URL+"/authorize", p.srv.URL+"/token")
	tools := `[{"name":"acme_profile","description":"The connected Acme user's profile: login and plan.",
		"input_schema":{"type":"object","properties":{},"additionalProperties":false},
		"http":{"method":"GET","path":"/api/profile","response":{"fields":["login","plan"]}}}]`
	d := filepath.Join(dir, "acme")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"manifest.json": manifest, "tools.json": tools} {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// mcpEnv is one served instance with its provider and two users.
type mcpEnv struct {
	srv       *e2eServer
	provider  *oauthProvider
	ada, bob  e2eUser
	endpoint  string
	callbackU string
}

func newMCPEnv(t *testing.T, databaseURL string) *mcpEnv {
	t.Helper()
	p := newOAuthProvider(t)
	plugDir := t.TempDir()
	writeAcmePlugin(t, plugDir, p)
	srv := startE2E(t, databaseURL, map[string]string{
		"PLUGINS_DIR":                  plugDir,
		"WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"ACME_CLIENT_ID":               acmeClientID,
		"ACME_CLIENT_SECRET":           acmeClientSecret,
	}, slog.LevelInfo)
	p.register(srv.Base + "/api/auth/plugin/acme/callback")
	return &mcpEnv{
		srv: srv, provider: p, endpoint: srv.Base + "/mcp", callbackU: srv.Base + "/api/auth/plugin/acme/callback",
		ada: srv.user(t, "ada@example.com"), bob: srv.user(t, "bob@example.com"),
	}
}

// bearerTransport adds the API key to every request of the SDK client and records the status of
// each DELETE it sends.
type bearerTransport struct {
	key  string
	base http.RoundTripper

	mu      sync.Mutex
	deletes []int
}

func (b *bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	resp, err := b.base.RoundTrip(r)
	if err == nil && r.Method == http.MethodDelete {
		b.mu.Lock()
		b.deletes = append(b.deletes, resp.StatusCode)
		b.mu.Unlock()
	}
	return resp, err
}

func (b *bearerTransport) deleteStatuses() []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.deletes)
}

// connectSDK opens an initialized MCP session with the official client, authenticated by key.
func (e *mcpEnv) connectSDK(t *testing.T, key string) (*sdk.ClientSession, *bearerTransport) {
	t.Helper()
	rt := &bearerTransport{key: key, base: http.DefaultTransport}
	client := sdk.NewClient(&sdk.Implementation{Name: "workbench-e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{
		Endpoint:   e.endpoint,
		HTTPClient: &http.Client{Transport: rt},
		MaxRetries: -1,
	}, nil)
	if err != nil {
		t.Fatalf("connect the SDK client: %v", err)
	}
	return cs, rt
}

// call runs a meta-tool through the SDK and decodes its one text block as JSON into out.
func call(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any, out any) {
	t.Helper()
	text := callText(t, cs, tool, args)
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("%s answered %q: %v", tool, text, err)
	}
}

// callError calls a meta-tool that must fail on its own (isError) and returns its text.
func callError(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if !res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s: isError=%v content=%+v, want an error result", tool, res.IsError, res.Content)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", tool, res.Content[0])
	}
	return tc.Text
}

func callText(t *testing.T, cs *sdk.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	// execute_tools answers isError when every execution failed; its text block is the results all the same.
	if res.IsError && tool != "execute_tools" || len(res.Content) != 1 {
		t.Fatalf("%s: isError=%v content=%+v", tool, res.IsError, res.Content)
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", tool, res.Content[0])
	}
	return tc.Text
}

type execResults struct {
	Results []map[string]json.RawMessage `json:"results"`
}

func execute(t *testing.T, cs *sdk.ClientSession, executions ...map[string]any) execResults {
	t.Helper()
	var out execResults
	call(t, cs, "execute_tools", map[string]any{"executions": executions}, &out)
	if len(out.Results) != len(executions) {
		t.Fatalf("execute_tools returned %d results for %d executions", len(out.Results), len(executions))
	}
	return out
}

func ex(tool string, args map[string]any) map[string]any {
	if args == nil {
		args = map[string]any{}
	}
	return map[string]any{"tool": tool, "args": args}
}

// browser is a portal user agent: signed in as user (uuid.Nil: signed out), not following redirects.
func (e *mcpEnv) browser(t *testing.T, user uuid.UUID) *http.Client {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if user == uuid.Nil {
		return c
	}
	cookie, err := e.srv.M.Sessions.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	c.Transport = cookieTransport{cookie: cookie, base: http.DefaultTransport}
	return c
}

type cookieTransport struct {
	cookie *http.Cookie
	base   http.RoundTripper
}

func (c cookieTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	// Only the workbench gets the portal cookie, as a browser would send it.
	if r.URL.Path == "/api/connect/redeem" || strings.HasPrefix(r.URL.Path, "/api/auth/") {
		r = r.Clone(r.Context())
		r.AddCookie(c.cookie)
	}
	return c.base.RoundTrip(r)
}

// redeem posts a claim link from the portal page and returns the status and the decoded body.
func (e *mcpEnv) redeem(t *testing.T, c *http.Client, link string) (int, map[string]string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"token": link})
	req, _ := http.NewRequest(http.MethodPost, e.srv.Base+"/api/connect/redeem", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", e.srv.Base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]string{}
	json.NewDecoder(resp.Body).Decode(&out) //nolint:errcheck // the status says what went wrong
	return resp.StatusCode, out
}

// runMCPSuite is the whole end-to-end scenario on one served instance; its steps share the instance
// and run in order.
func runMCPSuite(t *testing.T, databaseURL string) {
	e := newMCPEnv(t, databaseURL)
	ada, adaRT := e.connectSDK(t, e.ada.Key)
	defer ada.Close()
	bob, _ := e.connectSDK(t, e.bob.Key)
	defer bob.Close()

	t.Run("discovery", func(t *testing.T) { e.discovery(t, ada, bob) })
	t.Run("execute and audit", func(t *testing.T) { e.executeAndAudit(t, ada) })
	t.Run("batch is index-aligned", func(t *testing.T) { e.batch(t, bob) })
	t.Run("connect flow and lazy refresh", func(t *testing.T) { e.connectFlow(t, ada, bob) })
	t.Run("auth", func(t *testing.T) { e.auth(t) })
	t.Run("session delete", func(t *testing.T) {
		sid := ada.ID()
		if err := ada.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		if got := adaRT.deleteStatuses(); !slices.Equal(got, []int{http.StatusNoContent}) {
			t.Fatalf("the SDK client's DELETE answered %v, want [204]", got)
		}
		// The ended session is gone for good, even with the right key.
		status, body := e.rawPost(t, e.ada.Key, sid, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if status != http.StatusNotFound {
			t.Fatalf("ping on an ended session: %d %s", status, body)
		}
	})
}

func TestMCPEndToEndSQLite(t *testing.T) {
	// Serial: the token-refresh steps run on the wall clock within a 3s window, which parallel load breaks.
	runMCPSuite(t, filepath.Join(t.TempDir(), "wb.db"))
}

func TestMCPEndToEndPostgres(t *testing.T) {
	// Serial: the token-refresh steps run on the wall clock within a 3s window, which parallel load breaks.
	runMCPSuite(t, testenv.PostgresURL(t))
}

var metaToolNames = []string{"connect", "curl_session", "execute_tools", "get_auth_url", "get_tool_schema", "list_integrations", "search_tools", "wait_for_connection", "whoami"}

func (e *mcpEnv) discovery(t *testing.T, ada, bob *sdk.ClientSession) {
	ctx := context.Background()
	tools, err := ada.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if strings.TrimSpace(tool.Description) == "" || !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: description %q, schema %s", tool.Name, tool.Description, schema)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, metaToolNames) {
		t.Fatalf("tools/list = %v, want exactly the nine meta-tools %v (the catalog has %d tools)", names, metaToolNames, len(e.srv.M.Plugins.Tools()))
	}

	var who map[string]string
	call(t, ada, "whoami", nil, &who)
	if who["id"] != e.ada.ID.String() || who["email"] != "ada@example.com" {
		t.Fatalf("whoami = %v", who)
	}
	call(t, bob, "whoami", nil, &who)
	if who["id"] != e.bob.ID.String() {
		t.Fatalf("whoami as bob = %v", who)
	}

	connected := e.connectedFlags(t, ada)
	for name, want := range map[string]bool{"utils": true, "acme": false, "github": false, "newrelic": false} {
		if got, ok := connected[name]; !ok || got != want {
			t.Errorf("list_integrations: %s connected=%v (listed %v), want %v", name, got, ok, want)
		}
	}

	var found struct {
		Tools []struct{ Name, Integration string } `json:"tools"`
	}
	call(t, ada, "search_tools", map[string]any{"query": "utils_echo"}, &found)
	if len(found.Tools) == 0 || found.Tools[0].Name != "utils_echo" || found.Tools[0].Integration != "utils" {
		t.Fatalf("search_tools utils_echo: %+v", found.Tools)
	}
	call(t, ada, "search_tools", map[string]any{"query": "profile", "integration": "acme"}, &found)
	if len(found.Tools) != 1 || found.Tools[0].Name != "acme_profile" {
		t.Fatalf("search_tools in acme: %+v", found.Tools)
	}
	var schema struct {
		Name        string `json:"name"`
		Integration string `json:"integration"`
		InputSchema struct {
			Required []string `json:"required"`
		} `json:"inputSchema"`
		Error string `json:"error"`
	}
	call(t, ada, "get_tool_schema", map[string]any{"tool": "utils_echo"}, &schema)
	if schema.Name != "utils_echo" || schema.Integration != "utils" || !slices.Equal(schema.InputSchema.Required, []string{"message"}) {
		t.Fatalf("get_tool_schema: %+v", schema)
	}
	// A meta-tool that fails on its own: a result with isError.
	if text := callError(t, ada, "get_tool_schema", map[string]any{"tool": "nope_tool"}); !strings.Contains(text, "Unknown tool: nope_tool") {
		t.Fatalf("get_tool_schema of an unknown tool: %s", text)
	}
	// A meta-tool that does not exist, or arguments that fail a meta-tool's schema: -32602.
	for _, bad := range []sdk.CallToolParams{{Name: "no_such_meta_tool"}, {Name: "search_tools", Arguments: map[string]any{"limit": 5}}} {
		_, err := ada.CallTool(ctx, &bad)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s %v: err = %v, want JSON-RPC -32602", bad.Name, bad.Arguments, err)
		}
	}
}

func (e *mcpEnv) connectedFlags(t *testing.T, cs *sdk.ClientSession) map[string]bool {
	t.Helper()
	var list struct {
		Integrations []struct {
			Name      string `json:"name"`
			AuthMode  string `json:"auth_mode"`
			Connected bool   `json:"connected"`
		} `json:"integrations"`
	}
	call(t, cs, "list_integrations", nil, &list)
	out := map[string]bool{}
	for _, in := range list.Integrations {
		out[in.Name] = in.Connected
	}
	return out
}

func (e *mcpEnv) executeAndAudit(t *testing.T, ada *sdk.ClientSession) {
	canary := "canary-" + uuid.NewString()
	before := len(e.srv.settledEvents(t, execution.TypeToolExecuted, 0))
	res := execute(t, ada, ex("utils_echo", map[string]any{"message": canary}))
	var got struct{ Message string }
	if err := json.Unmarshal(res.Results[0]["result"], &got); err != nil || got.Message != canary {
		t.Fatalf("utils_echo: %v (%v)", res.Results[0], err)
	}
	// The record is appended (committed) before the result is returned. Readers of the log see it at once
	// on SQLite; on PostgreSQL once older transactions have ended, hence settledEvents.
	evs := e.srv.settledEvents(t, execution.TypeToolExecuted, before+1)
	if len(evs) != before+1 {
		t.Fatalf("%d ToolExecuted events after one execution, want %d", len(evs), before+1)
	}
	ev := evs[len(evs)-1]
	var rec execution.ToolExecuted
	if err := json.Unmarshal(ev.Data, &rec); err != nil {
		t.Fatal(err)
	}
	switch {
	case rec.UserID != e.ada.ID || rec.Via != "api_key" || rec.ClientID != e.ada.KeyID.String():
		t.Errorf("who: %+v", rec)
	case rec.Tool != "utils_echo" || rec.Integration != "utils" || !rec.Success || rec.ErrorCode != "":
		t.Errorf("what: %+v", rec)
	case rec.ArgsSize == 0 || len(rec.ArgsSHA256) != 64 || rec.ResultSize == 0 || len(rec.ResultSHA256) != 64:
		t.Errorf("digests: %+v", rec)
	case rec.At.IsZero() || ev.Stream != execution.StreamName(rec.ExecutionID) || ev.Metadata.Actor != e.ada.ID.String():
		t.Errorf("record: %+v in stream %s, metadata %+v", rec, ev.Stream, ev.Metadata)
	}
	whole, _ := json.Marshal(ev)
	if strings.Contains(string(whole), canary) {
		t.Fatalf("the audit event holds the tool's content: %s", whole)
	}
	// The digest is of the result the agent received, so the record proves what was exchanged.
	if size, sum := execution.Digest(res.Results[0]["result"]); sum != rec.ResultSHA256 || size != rec.ResultSize {
		t.Errorf("result digest %d %s, the agent received %d bytes hashing to %s", rec.ResultSize, rec.ResultSHA256, size, sum)
	}
}

func (e *mcpEnv) batch(t *testing.T, bob *sdk.ClientSession) {
	before := len(e.srv.settledEvents(t, execution.TypeToolExecuted, 0))
	res := execute(t, bob,
		ex("utils_echo", map[string]any{"message": "first"}),
		ex("acme_nonexistent", map[string]any{}),
		ex("utils_echo", map[string]any{"message": 42}),
		ex("acme_profile", map[string]any{}),
		ex("utils_echo", map[string]any{"message": "last"}),
	)
	check := func(i int, key, want string) {
		t.Helper()
		if got := string(res.Results[i][key]); !strings.Contains(got, want) {
			t.Errorf("result %d: %s = %s, want it to contain %q (entry %v)", i, key, got, want, res.Results[i])
		}
	}
	check(0, "result", `"message":"first"`)
	check(1, "error", "Unknown tool: acme_nonexistent")
	check(2, "error", "Invalid arguments for utils_echo:")
	check(3, "error", "NOT_CONNECTED")
	check(3, "integration", "acme")
	check(3, "message", `connect({\"integration\":\"acme\"})`)
	check(4, "result", `"message":"last"`)

	evs := e.srv.settledEvents(t, execution.TypeToolExecuted, before+5)[before:]
	var codes []string
	for _, ev := range evs {
		var rec execution.ToolExecuted
		if err := json.Unmarshal(ev.Data, &rec); err != nil {
			t.Fatal(err)
		}
		codes = append(codes, rec.Tool+":"+rec.ErrorCode)
	}
	slices.Sort(codes)
	want := []string{"acme_nonexistent:UNKNOWN_TOOL", "acme_profile:NOT_CONNECTED", "utils_echo:", "utils_echo:", "utils_echo:INVALID_ARGUMENTS"}
	if !slices.Equal(codes, want) {
		t.Fatalf("audit records of the batch: %v, want %v", codes, want)
	}
}

func (e *mcpEnv) connectFlow(t *testing.T, ada, bob *sdk.ClientSession) {
	var started struct {
		ConnectionID string `json:"connectionId"`
		Type         string `json:"type"`
		URL          string `json:"url"`
	}
	call(t, ada, "connect", map[string]any{"integration": "acme"}, &started)
	if started.Type != "oauth2" || !strings.HasPrefix(started.URL, e.srv.Base+"/connect/") || strings.Contains(started.URL, e.provider.srv.URL) {
		t.Fatalf("connect = %+v: want a workbench claim link", started)
	}

	// The agent waits through its own MCP session while the user goes through the browser steps.
	waited := make(chan string, 1)
	go func() {
		res, err := ada.CallTool(context.Background(), &sdk.CallToolParams{Name: "wait_for_connection",
			Arguments: map[string]any{"connectionId": started.ConnectionID, "timeout_seconds": 60}})
		switch {
		case err != nil:
			waited <- "error: " + err.Error()
		case len(res.Content) != 1:
			waited <- fmt.Sprintf("content: %+v", res.Content)
		default:
			waited <- res.Content[0].(*sdk.TextContent).Text
		}
	}()

	// Bob's portal session cannot redeem Ada's link; a signed-out browser cannot either.
	status, body := e.redeem(t, e.browser(t, e.bob.ID), started.URL)
	if status != http.StatusForbidden || body["error"] != "ACCOUNT_MISMATCH" {
		t.Fatalf("redeem with another user's session: %d %v, want 403 ACCOUNT_MISMATCH", status, body)
	}
	if status, body := e.redeem(t, e.browser(t, uuid.Nil), started.URL); status != http.StatusUnauthorized {
		t.Fatalf("redeem signed out: %d %v, want 401", status, body)
	}
	if e.provider.exchanges() != 0 {
		t.Fatal("the provider was contacted before the link was redeemed")
	}

	browser := e.browser(t, e.ada.ID)
	status, body = e.redeem(t, browser, started.URL)
	if status != http.StatusOK || body["type"] != "oauth2" || body["connectionId"] != started.ConnectionID || !strings.HasPrefix(body["url"], e.provider.srv.URL+"/authorize?") {
		t.Fatalf("redeem: %d %v", status, body)
	}
	resp, err := browser.Get(body["url"])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	callback := resp.Header.Get("Location")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(callback, e.callbackU+"?") {
		t.Fatalf("provider consent answered %d, Location %q", resp.StatusCode, callback)
	}
	resp, err = browser.Get(callback)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusSeeOther || back == nil || back.Query().Get("connected") != "acme" {
		t.Fatalf("callback answered %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	select {
	case got := <-waited:
		if got != `{"status":"CONNECTED"}` {
			t.Fatalf("wait_for_connection = %s", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("wait_for_connection did not return after the callback")
	}
	if n := e.provider.exchanges(); n != 1 {
		t.Fatalf("%d code exchanges, want 1", n)
	}
	// Another user's view of the attempt: unknown, a tool result with isError.
	if text := callError(t, bob, "wait_for_connection", map[string]any{"connectionId": started.ConnectionID, "timeout_seconds": 1}); text != `{"error":"Unknown connectionId"}` {
		t.Fatalf("bob waiting on ada's attempt: %s", text)
	}
	if flags := e.connectedFlags(t, ada); !flags["acme"] {
		t.Fatalf("list_integrations after connecting: %v", flags)
	}
	if flags := e.connectedFlags(t, bob); flags["acme"] {
		t.Fatalf("bob sees acme connected: %v", flags)
	}

	// The tool reaches the provider with the injected token, unrefreshed while it is fresh.
	profile := func() string {
		t.Helper()
		res := execute(t, ada, ex("acme_profile", nil))
		if got := string(res.Results[0]["result"]); got != `{"login":"ada-at-acme","plan":"pro"}` {
			t.Fatalf("acme_profile: %v", res.Results[0])
		}
		seen := e.provider.seenTokens()
		return seen[len(seen)-1]
	}
	first := profile()
	if age := time.Since(e.provider.firstGrant()); age > (acmeFirstExpiresIn*time.Second - acmeRefreshWindow) {
		t.Fatalf("the first call came %s after the grant: the machine is too slow for this test's timing", age)
	}
	if !strings.HasPrefix(first, "at-1-") || e.provider.refreshes() != 0 {
		t.Fatalf("first call used %q with %d refreshes, want the exchanged token and none", first, e.provider.refreshes())
	}

	// Once the token is inside the refresh window, the next call refreshes it first, exactly once.
	time.Sleep(time.Until(e.provider.firstGrant().Add(acmeFirstExpiresIn*time.Second - acmeRefreshWindow + 500*time.Millisecond)))
	second := profile()
	if second == first || !strings.HasPrefix(second, "at-2-") || e.provider.refreshes() != 1 {
		t.Fatalf("after expiry the call used %q with %d refreshes, want a refreshed token and one refresh", second, e.provider.refreshes())
	}
	third := profile()
	if third != second || e.provider.refreshes() != 1 {
		t.Fatalf("the call after the refresh used %q with %d refreshes", third, e.provider.refreshes())
	}
	// The executions record the connection version they used; the refresh moved it on. Each was
	// appended before its result came back, but on PostgreSQL may become readable a moment later.
	var versions []int64
	e.srv.eventsUntil(t, execution.TypeToolExecuted, func(evs []eventstore.Envelope) bool {
		var rec execution.ToolExecuted
		json.Unmarshal(evs[len(evs)-1].Data, &rec) //nolint:errcheck
		if rec.Tool == "acme_profile" && rec.Success {
			versions = append(versions, rec.ConnectionVersion)
		}
		return len(versions) == 3
	})
	if len(versions) != 3 || versions[0] == 0 {
		t.Fatalf("connection versions of the acme executions: %v", versions)
	}
}

// rawPost sends one JSON-RPC message to /mcp with the given key, session id and Origin.
func (e *mcpEnv) rawPost(t *testing.T, key, sid, origin, body string) (int, string) {
	t.Helper()
	status, _, b := e.rawPostHeaders(t, key, sid, origin, body)
	return status, b
}

func (e *mcpEnv) rawPostHeaders(t *testing.T, key, sid, origin, body string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.endpoint, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var sb strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		sb.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return resp.StatusCode, resp.Header, sb.String()
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func (e *mcpEnv) auth(t *testing.T) {
	ctx := context.Background()
	// Carol has a live session, then her key is rotated, then revoked.
	carol := e.srv.user(t, "carol@example.com")
	cs, _ := e.connectSDK(t, carol.Key)
	defer cs.Close()
	if err := cs.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, sidHeaders, _ := e.rawPostHeaders(t, carol.Key, "", "", initializeBody)
	carolSID := sidHeaders.Get("Mcp-Session-Id")
	md := eventstore.Metadata{Actor: "test", OnBehalfOf: carol.ID.String(), Time: time.Now().UTC()}
	rotated, pos, err := e.srv.M.Accounts.RotateKey(ctx, carol.ID, md)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.waitFor(t, pos)

	resourceMetadata := `resource_metadata="` + e.srv.Base + `/.well-known/oauth-protected-resource/mcp"`
	tests := []struct {
		name, key, sid, origin, body string
		status                       int
		wantHeader                   string // substring of WWW-Authenticate
		wantBody                     string
	}{
		{name: "no key", body: initializeBody, status: 401, wantHeader: resourceMetadata, wantBody: `"code":-32001`},
		{name: "not a workbench key", key: "sk-not-ours", body: initializeBody, status: 401, wantHeader: `error="invalid_token"`, wantBody: `"code":-32001`},
		{name: "rotated key", key: carol.Key, body: initializeBody, status: 401, wantHeader: resourceMetadata, wantBody: `"code":-32001`},
		{name: "rotated key with its live session id", key: carol.Key, sid: carolSID, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 401, wantBody: `"code":-32001`},
		{name: "new key with the old session id", key: rotated.Secret, sid: carolSID, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 200, wantBody: `"result":{}`},
		{name: "another user's session id", key: e.bob.Key, sid: carolSID, body: `{"jsonrpc":"2.0","id":2,"method":"ping"}`, status: 404},
		{name: "foreign Origin", key: rotated.Secret, origin: "http://evil.example", body: initializeBody, status: 403},
		{name: "foreign Origin without a key", origin: "https://attacker.test", body: initializeBody, status: 403},
		{name: "own Origin", key: rotated.Secret, origin: e.srv.Base, body: initializeBody, status: 200, wantBody: `"protocolVersion":"2025-11-25"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, h, body := e.rawPostHeaders(t, tt.key, tt.sid, tt.origin, tt.body)
			if status != tt.status || !strings.Contains(h.Get("WWW-Authenticate"), tt.wantHeader) || !strings.Contains(body, tt.wantBody) {
				t.Fatalf("%d, WWW-Authenticate %q, body %s; want %d, %q, %q", status, h.Get("WWW-Authenticate"), body, tt.status, tt.wantHeader, tt.wantBody)
			}
		})
	}
	// The SDK session opened with the rotated key is refused on its next call.
	if err := cs.Ping(ctx, nil); err == nil {
		t.Fatal("a session kept working after its key was rotated")
	}
	// The SDK client without a key cannot even initialize.
	client := sdk.NewClient(&sdk.Implementation{Name: "anon", Version: "1"}, nil)
	if anon, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: e.endpoint, MaxRetries: -1}, nil); err == nil {
		anon.Close()
		t.Fatal("the SDK client connected without a key")
	}

	pos, err = e.srv.M.Accounts.RevokeKey(ctx, carol.ID, md)
	if err != nil {
		t.Fatal(err)
	}
	e.srv.waitFor(t, pos)
	if status, body := e.rawPost(t, rotated.Secret, carolSID, "", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); status != 401 || !strings.Contains(body, `-32001`) {
		t.Fatalf("revoked key: %d %s", status, body)
	}
	// GET offers no stream.
	req, _ := http.NewRequest(http.MethodGet, e.endpoint, nil)
	req.Header.Set("Authorization", "Bearer "+e.bob.Key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /mcp: %d, want 405", resp.StatusCode)
	}
}
