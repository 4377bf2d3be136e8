package metatools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/handlers/mcp"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

// fakeCredentials is a hand-written fake of the credential layer with function fields.
type fakeCredentials struct {
	connected map[string]bool
	access    func(in *plugins.Integration) (Access, error)
	connect   func(integration string) (ConnectResult, error)
	accounts  map[string][]connections.AccountView
	// account is the label the last connect named.
	account string
	wait    func(attempt uuid.UUID, timeout time.Duration) (string, error)
	// client is the MCP client the last connect named.
	client string
}

func (f *fakeCredentials) Connected(context.Context, uuid.UUID) (map[string]bool, error) {
	return f.connected, nil
}
func (f *fakeCredentials) Access(_ context.Context, _ uuid.UUID, in *plugins.Integration, _ string) (Access, error) {
	return f.access(in) // called by concurrent executions: it records nothing
}
func (f *fakeCredentials) ConnectFrom(_ context.Context, _ uuid.UUID, integration, account, client string) (ConnectResult, error) {
	f.client, f.account = client, account
	return f.connect(integration)
}
func (f *fakeCredentials) Accounts(context.Context, uuid.UUID) (map[string][]connections.AccountView, error) {
	return f.accounts, nil
}
func (f *fakeCredentials) WaitForConnection(_ context.Context, _, attempt uuid.UUID, timeout time.Duration) (string, error) {
	return f.wait(attempt, timeout)
}

func notConnected(in *plugins.Integration) (Access, error) {
	if in.Auth.Mode == plugins.AuthNone {
		return Access{}, nil
	}
	return Access{}, domain.Errorf(domain.CodeNotConnected, "%s is not connected", in.Name)
}

// slowPlugin writes a plugin folder whose one tool blocks in a Go handler, to observe concurrency.
func slowPlugin(t testing.TB) string {
	dir := filepath.Join(t.TempDir(), "plugins")
	p := filepath.Join(dir, "slowpoke")
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p, "manifest.json"), []byte(`{"name":"slowpoke","version":"1.0.0","display_name":"Slowpoke","description":"Blocks.","auth":{"mode":"none"}}`), 0o644)
	os.WriteFile(filepath.Join(p, "tools.json"), []byte(`[{"name":"slowpoke_wait","description":"Waits a little and returns its index.","input_schema":{"type":"object","properties":{"i":{"type":"integer"}},"required":["i"],"additionalProperties":false},"handler":"go"}]`), 0o644)
	return dir
}

type env struct {
	set      *Set
	store    *memory.Store
	creds    *fakeCredentials
	inFlight atomic.Int32
	peak     atomic.Int32
}

func newEnv(t testing.TB, appender executions.Appender) *env {
	t.Helper()
	return newEnvTransport(t, appender, nil)
}

// newEnvTransport is newEnv with the plugin tools' HTTP sent through transport.
func newEnvTransport(t testing.TB, appender executions.Appender, transport http.RoundTripper) *env {
	t.Helper()
	e := &env{store: memory.New(nil)}
	t.Cleanup(func() { e.store.Close() })
	reg, problems := plugins.Load(context.Background(), plugins.Options{
		Builtins:   shipped.Plugins(),
		PluginsDir: slowPlugin(t),
		Handlers: map[string]plugins.Handler{"slowpoke_wait": func(ctx context.Context, rc plugins.Context, args json.RawMessage) (any, error) {
			n := e.inFlight.Add(1)
			for {
				p := e.peak.Load()
				if n <= p || e.peak.CompareAndSwap(p, n) {
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
			e.inFlight.Add(-1)
			var a struct{ I int }
			json.Unmarshal(args, &a)
			return map[string]int{"i": a.I}, nil
		}},
	})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	e.creds = &fakeCredentials{connected: map[string]bool{"github": true}, access: notConnected}
	if appender == nil {
		appender = e.store
	}
	ex, err := executions.New(executions.Options{Registry: reg, Credentials: e.creds, Store: appender, Transport: transport})
	if err != nil {
		t.Fatal(err)
	}
	set, err := New(Options{Registry: reg, Credentials: e.creds, Executions: ex, PublicURL: "https://wb.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	e.set = set
	return e
}

var ada = mcp.Principal{UserID: uuid.NewString(), Email: "ada@example.com", Method: "api_key", ClientID: "key-1"}

func call(t *testing.T, s *Set, name, args string) map[string]any {
	t.Helper()
	out, _ := callResult(t, s, name, args)
	return out
}

// callResult is call with the result's isError flag.
func callResult(t *testing.T, s *Set, name, args string) (map[string]any, bool) {
	t.Helper()
	res, err := s.CallTool(context.Background(), ada, name, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(res.Text), &out); err != nil {
		t.Fatalf("%s answered non-JSON %q", name, res.Text)
	}
	return out, res.IsError
}

func TestExactlyNineMetaTools(t *testing.T) {
	e := newEnv(t, nil)
	var names []string
	for _, tool := range e.set.Tools() {
		names = append(names, tool.Name)
		if len(tool.Description) < 30 || !json.Valid(tool.InputSchema) {
			t.Errorf("%s: thin description or bad schema", tool.Name)
		}
	}
	want := "search_tools get_tool_schema execute_tools whoami list_integrations connect wait_for_connection get_auth_url curl_session"
	if strings.Join(names, " ") != want {
		t.Fatalf("tools = %v", names)
	}
}

func TestProtocolErrors(t *testing.T) {
	e := newEnv(t, nil)
	tests := []struct{ name, tool, args, want string }{
		{"unknown meta-tool", "github_list_repos", `{}`, "Unknown tool: github_list_repos"},
		{"missing required", "search_tools", `{}`, "Invalid arguments for search_tools: "},
		{"extra property", "whoami", `{"x":1}`, "Invalid arguments for whoami: "},
		{"wrong type", "execute_tools", `{"executions":"github"}`, "Invalid arguments for execute_tools: "},
		{"empty batch", "execute_tools", `{"executions":[]}`, "Invalid arguments for execute_tools: "},
		{"limit out of range", "search_tools", `{"query":"x","limit":500}`, "Invalid arguments for search_tools: "},
		{"malformed account label", "connect", `{"integration":"github","account":"Not A Label"}`, "Invalid arguments for connect: "},
		{"account label too long", "execute_tools", `{"executions":[{"tool":"utils_echo","account":"abcdefghijklmnopqrstuvwxyz0123456"}]}`, "Invalid arguments for execute_tools: "},
		{"malformed execution account", "execute_tools", `{"executions":[{"tool":"utils_echo","account":"Work"}]}`, "Invalid arguments for execute_tools: "},
		{"malformed curl account", "curl_session", `{"integrations":["github"],"account":"a.b"}`, "Invalid arguments for curl_session: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.set.CallTool(context.Background(), ada, tt.tool, json.RawMessage(tt.args))
			var pe *mcp.ParamsError
			if !errors.As(err, &pe) || !strings.HasPrefix(pe.Message, tt.want) {
				t.Fatalf("err = %v, want a ParamsError starting %q", err, tt.want)
			}
		})
	}
}

func TestDiscovery(t *testing.T) {
	e := newEnv(t, nil)
	out := call(t, e.set, "search_tools", `{"query":"github_list_repos"}`)
	tools := out["tools"].([]any)
	if len(tools) == 0 || tools[0].(map[string]any)["name"] != "github_list_repos" {
		t.Fatalf("exact name not first: %v", tools)
	}
	out = call(t, e.set, "search_tools", `{"query":"repo","integration":"github","limit":2}`)
	if n := len(out["tools"].([]any)); n != 2 {
		t.Fatalf("limit ignored: %d", n)
	}
	if out = call(t, e.set, "search_tools", `{"query":"x","integration":"nope"}`); !strings.Contains(fmt.Sprint(out["error"]), "Unknown integration: nope") {
		t.Fatalf("unknown integration: %v", out)
	}
	out = call(t, e.set, "get_tool_schema", `{"tool":"github_get_repo"}`)
	if out["integration"] != "github" || out["inputSchema"].(map[string]any)["type"] != "object" {
		t.Fatalf("schema: %v", out)
	}
	if out = call(t, e.set, "get_tool_schema", `{"tool":"nope"}`); !strings.Contains(fmt.Sprint(out["error"]), "Unknown tool: nope") {
		t.Fatalf("unknown tool schema: %v", out)
	}
	out = call(t, e.set, "whoami", `{}`)
	if out["email"] != "ada@example.com" || out["id"] != ada.UserID {
		t.Fatalf("whoami: %v", out)
	}
	out = call(t, e.set, "list_integrations", `{}`)
	got := map[string]bool{}
	for _, it := range out["integrations"].([]any) {
		m := it.(map[string]any)
		got[m["name"].(string)] = m["connected"].(bool)
	}
	if !got["github"] || got["newrelic"] || !got["utils"] || !got["slowpoke"] {
		t.Fatalf("connected flags: %v", got)
	}

	// Accounts: each integration's, only where there are any, and how to reconnect one that needs it.
	e.creds.accounts = map[string][]connections.AccountView{
		"github":   {{Label: "default", Status: "connected", Default: true}, {Label: "work", Hint: "octo-work", Status: "needs_reauth"}},
		"newrelic": {{Label: "ops", Status: "needs_reauth", Default: true}},
	}
	out = call(t, e.set, "list_integrations", `{}`)
	accounts := map[string]string{}
	for _, it := range out["integrations"].([]any) {
		m := it.(map[string]any)
		if a, ok := m["accounts"]; ok {
			b, _ := json.Marshal(a)
			accounts[m["name"].(string)] = string(b)
		}
	}
	want := map[string]string{
		"github":   `[{"default":true,"label":"default","status":"connected"},{"default":false,"hint":"octo-work","label":"work","reconnect":"connect({\"integration\":\"github\",\"account\":\"work\"})","status":"needs_reauth"}]`,
		"newrelic": `[{"default":true,"label":"ops","reconnect":"The user replaces the key of account \"ops\" on the newrelic card: https://wb.example.com/integrations","status":"needs_reauth"}]`,
	}
	if len(accounts) != len(want) || accounts["github"] != want["github"] || accounts["newrelic"] != want["newrelic"] {
		t.Fatalf("accounts in list_integrations:\n%v\nwant\n%v", accounts, want)
	}
}

func TestConnectAndWait(t *testing.T) {
	e := newEnv(t, nil)
	attempt := uuid.New()
	e.creds.connect = func(integration string) (ConnectResult, error) {
		switch integration {
		case "newrelic":
			return ConnectResult{}, domain.Errorf(domain.CodeInvalid, "newrelic uses an API key: connect it in the portal")
		case "nope":
			return ConnectResult{}, domain.Errorf(domain.CodeNotFound, "unknown integration nope")
		case "slack":
			return ConnectResult{}, domain.Errorf(domain.CodeUnavailable, "slack cannot be connected on this server yet: the operator has not set SLACK_CLIENT_ID")
		}
		return ConnectResult{ConnectionID: attempt, Type: "oauth2", URL: "https://wb.example.com/connect/tok"}, nil
	}
	e.creds.wait = func(id uuid.UUID, timeout time.Duration) (string, error) {
		if id != attempt {
			return "", domain.Errorf(domain.CodeNotFound, "Unknown connectionId")
		}
		if timeout != 120*time.Second {
			return "", fmt.Errorf("default timeout not applied: %v", timeout)
		}
		return "CONNECTED", nil
	}
	out := call(t, e.set, "connect", `{"integration":"github"}`)
	if out["connectionId"] != attempt.String() || out["type"] != "oauth2" || out["url"] != "https://wb.example.com/connect/tok" {
		t.Fatalf("connect: %v", out)
	}
	if e.creds.client != ada.ClientID {
		t.Fatalf("connect named the MCP client %q, want the caller's %q", e.creds.client, ada.ClientID)
	}
	if e.creds.account != "" {
		t.Fatalf("connect without an account passed %q", e.creds.account)
	}
	if out = call(t, e.set, "connect", `{"integration":"github","account":"work"}`); e.creds.account != "work" || out["url"] == nil {
		t.Fatalf("connect with an account: passed %q, answered %v", e.creds.account, out)
	}
	if out = call(t, e.set, "get_auth_url", `{"integration":"github"}`); out["deprecated"] == nil || out["url"] == nil {
		t.Fatalf("get_auth_url: %v", out)
	}
	// An API-key integration is connected by the user in the portal: connect answers where, as a
	// successful result, and starts nothing.
	for _, tool := range []string{"connect", "get_auth_url"} {
		out, isError := callResult(t, e.set, tool, `{"integration":"newrelic"}`)
		if isError || out["url"] != "https://wb.example.com/integrations" || out["type"] != "apikey" || out["connectionId"] != nil ||
			!strings.Contains(fmt.Sprint(out["instructions"]), "https://wb.example.com/integrations") {
			t.Fatalf("apikey %s: isError=%v %v", tool, isError, out)
		}
	}
	if out = call(t, e.set, "wait_for_connection", `{"connectionId":"`+attempt.String()+`"}`); out["status"] != "CONNECTED" {
		t.Fatalf("wait: %v", out)
	}

	// A meta-tool that fails on its own says so with isError.
	fails := []struct{ tool, args, want string }{
		{"connect", `{"integration":"nope"}`, "unknown integration nope"},
		{"connect", `{"integration":"slack"}`, "SLACK_CLIENT_ID"},
		{"get_auth_url", `{"integration":"nope"}`, "unknown integration nope"},
		{"wait_for_connection", `{"connectionId":"` + uuid.NewString() + `"}`, "Unknown connectionId"},
		{"wait_for_connection", `{"connectionId":"not-a-uuid"}`, "Unknown connectionId"},
		{"curl_session", `{"integrations":["github"]}`, "not available on this server"},
		{"get_tool_schema", `{"tool":"nope"}`, "Unknown tool: nope"},
		{"search_tools", `{"query":"x","integration":"nope"}`, "Unknown integration: nope"},
	}
	for _, f := range fails {
		out, isError := callResult(t, e.set, f.tool, f.args)
		if !isError || !strings.Contains(fmt.Sprint(out["error"]), f.want) {
			t.Fatalf("%s %s: isError=%v %v, want an error naming %q", f.tool, f.args, isError, out, f.want)
		}
	}
	// Successful answers are not errors.
	for _, ok := range []struct{ tool, args string }{{"connect", `{"integration":"github"}`}, {"whoami", `{}`}, {"list_integrations", `{}`}} {
		if out, isError := callResult(t, e.set, ok.tool, ok.args); isError {
			t.Fatalf("%s: isError on success: %v", ok.tool, out)
		}
	}
}

// githubFake answers GET https://api.github.com/user when it carries the injected token.
type githubFake struct{ token string }

func (g githubFake) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Host != "api.github.com" || r.URL.Path != "/user" || r.Header.Get("Authorization") != "Bearer "+g.token {
		return &http.Response{StatusCode: 401, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(`{"message":"Bad credentials"}`)), Request: r}, nil
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"login":"octocat","id":1,"name":"The Octocat","email":null,"html_url":"https://github.com/octocat"}`)), Request: r}, nil
}

func TestExecuteTools(t *testing.T) {
	e := newEnvTransport(t, nil, githubFake{token: "gho_secret"})
	e.creds.access = func(in *plugins.Integration) (Access, error) {
		switch in.Name {
		case "github":
			get := func(context.Context) (string, error) { return "gho_secret", nil }
			return Access{Injector: plugins.BearerInjector(get), GetToken: get, ConnectionVersion: 7}, nil
		case "newrelic":
			return notConnected(in)
		}
		return Access{}, nil
	}
	out := call(t, e.set, "execute_tools", `{"executions":[
		{"tool":"utils_echo","args":{"message":"hi"}},
		{"tool":"newrelic_get_current_user","args":{}},
		{"tool":"nope_tool"},
		{"tool":"utils_echo","args":{"message":7}},
		{"tool":"github_get_authenticated_user","args":{}},
		{"tool":"utils_uuid"}
	]}`)
	results := out["results"].([]any)
	if len(results) != 6 {
		t.Fatalf("results: %v", results)
	}
	r := func(i int) map[string]any { return results[i].(map[string]any) }
	if fmt.Sprint(r(0)["result"]) != "map[message:hi]" {
		t.Errorf("echo: %v", r(0))
	}
	// newrelic takes an API key: the agent is sent to the portal, not to connect (which cannot do it).
	if r(1)["error"] != "NOT_CONNECTED" || r(1)["integration"] != "newrelic" || r(1)["portal_url"] != "https://wb.example.com/integrations" ||
		!strings.Contains(fmt.Sprint(r(1)["message"]), "https://wb.example.com/integrations") || strings.Contains(fmt.Sprint(r(1)["message"]), "connect(") {
		t.Errorf("not connected: %v", r(1))
	}
	if !strings.Contains(fmt.Sprint(r(2)["error"]), "Unknown tool: nope_tool") {
		t.Errorf("unknown: %v", r(2))
	}
	if !strings.HasPrefix(fmt.Sprint(r(3)["error"]), "Invalid arguments for utils_echo: ") {
		t.Errorf("invalid args: %v", r(3))
	}
	if !strings.Contains(fmt.Sprint(r(4)["result"]), "octocat") {
		t.Errorf("github: %v", r(4))
	}
	if r(5)["result"] == nil {
		t.Errorf("uuid defaults not applied: %v", r(5))
	}

	// One ToolExecuted per execution, with digests and never the content.
	envs, err := e.store.ReadAll(context.Background(), eventstore.Start, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != 6 {
		t.Fatalf("%d events, want 6", len(envs))
	}
	codes := map[string]int{}
	for _, env := range envs {
		var ev execution.ToolExecuted
		if err := json.Unmarshal(env.Data, &ev); err != nil || env.Type != execution.TypeToolExecuted {
			t.Fatal(err, env.Type)
		}
		if strings.Contains(string(env.Data), "octocat") || strings.Contains(string(env.Data), `"hi"`) || strings.Contains(string(env.Data), "gho_secret") {
			t.Fatalf("content leaked into the audit event: %s", env.Data)
		}
		if ev.UserID.String() != ada.UserID || ev.ClientID != "key-1" || ev.Via != "api_key" || len(ev.ArgsSHA256) != 64 {
			t.Fatalf("event: %+v", ev)
		}
		if ev.Tool == "github_get_authenticated_user" && (ev.ConnectionVersion != 7 || !ev.Success || ev.ResultSize == 0) {
			t.Fatalf("github event: %+v", ev)
		}
		codes[ev.ErrorCode]++
	}
	want := map[string]int{"": 3, executions.CodeNotConnected: 1, executions.CodeUnknownTool: 1, executions.CodeInvalidArgs: 1}
	if fmt.Sprint(codes) != fmt.Sprint(want) {
		t.Fatalf("error codes %v, want %v", codes, want)
	}

	// execute_tools keeps per-execution errors in their entries; the result is isError only when
	// every execution failed.
	if _, isError := callResult(t, e.set, "execute_tools", `{"executions":[{"tool":"nope_tool"}]}`); !isError {
		t.Errorf("execute_tools whose every execution failed is not isError")
	}
	if _, isError := callResult(t, e.set, "execute_tools", `{"executions":[{"tool":"nope_tool"},{"tool":"utils_uuid"}]}`); isError {
		t.Errorf("execute_tools answered isError when one execution succeeded")
	}
}

func TestExecuteToolsBoundedAndAligned(t *testing.T) {
	e := newEnv(t, nil)
	var ex []string
	for i := range 24 {
		ex = append(ex, fmt.Sprintf(`{"tool":"slowpoke_wait","args":{"i":%d}}`, i))
	}
	out := call(t, e.set, "execute_tools", `{"executions":[`+strings.Join(ex, ",")+`]}`)
	for i, r := range out["results"].([]any) {
		if got := r.(map[string]any)["result"].(map[string]any)["i"]; got != float64(i) {
			t.Fatalf("result %d holds %v", i, got)
		}
	}
	if p := e.peak.Load(); p > 8 || p < 2 {
		t.Fatalf("peak concurrency %d, want between 2 and 8", p)
	}
}

// failingAppender refuses every append, as a full disk or a lost database would.
type failingAppender struct{}

func (f *failingAppender) Append(context.Context, string, eventstore.ExpectedVersion, ...eventstore.EventData) (eventstore.Position, error) {
	return eventstore.Position{}, errors.New("disk full")
}

func TestFailClosedWhenTheAuditAppendFails(t *testing.T) {
	e := newEnv(t, &failingAppender{})
	out := call(t, e.set, "execute_tools", `{"executions":[{"tool":"utils_echo","args":{"message":"secret result"}}]}`)
	r := out["results"].([]any)[0].(map[string]any)
	if r["result"] != nil || !strings.Contains(fmt.Sprint(r["error"]), "audit record") {
		t.Fatalf("result returned without its audit record: %v", r)
	}
}
