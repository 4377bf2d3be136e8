package connections_test

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
)

// echoProvider is an API that quotes the credential it was sent back in its answers, as an error
// page quoting the Authorization header does: GET /me answers it in JSON (plain, base64 in both
// alphabets inside a longer string, hex, split by a line break), GET /fail a 401 whose message holds
// it plain and in base64.
type echoProvider struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string // every credential value received
}

func newEchoProvider(t *testing.T) *echoProvider {
	p := &echoProvider{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var cred string
		switch {
		case strings.HasPrefix(r.Header.Get("Authorization"), "Bearer "):
			cred = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		case r.Header.Get("X-Api-Key") != "":
			cred = r.Header.Get("X-Api-Key")
		default:
			if c, err := r.Cookie("session"); err == nil {
				cred = c.Value
			}
		}
		p.mu.Lock()
		p.seen = append(p.seen, cred)
		p.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/cut" {
			// The runtime quotes at most 300 bytes of it: the token's beginning is left before the cut.
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": strings.Repeat("x", 285) + " " + strings.ToUpper(cred)})
			return
		}
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": "bad credentials: " + cred + " " + base64.StdEncoding.EncodeToString([]byte(cred))})
			return
		}
		half := len(cred) / 2
		_ = json.NewEncoder(w).Encode(map[string]any{
			"authorization": r.Header.Get("Authorization"),
			"plain":         cred,
			"b64":           base64.StdEncoding.EncodeToString([]byte("token=" + cred + ";")),
			"b64url":        base64.RawURLEncoding.EncodeToString([]byte("xy" + cred)),
			"hex":           strings.ToUpper(hex.EncodeToString([]byte(cred))),
			"split":         cred[:half] + "\n" + cred[half:],
			"basic":         "Basic " + base64.StdEncoding.EncodeToString([]byte("alice:"+cred)),
			"ok":            "nothing secret here",
		})
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *echoProvider) credentials() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// echoTools writes name's tools.json: <name>_me and <name>_fail against the echo provider.
func echoTools(t *testing.T, dir, name string) {
	t.Helper()
	tools := fmt.Sprintf(`[
		{"name":"%[1]s_me","description":"Who the credential belongs to.","input_schema":{"type":"object","additionalProperties":false},"http":{"method":"GET","path":"/me"}},
		{"name":"%[1]s_fail","description":"An answer refusing the credential.","input_schema":{"type":"object","additionalProperties":false},"http":{"method":"GET","path":"/fail"}},
		{"name":"%[1]s_cut","description":"A long answer refusing the credential.","input_schema":{"type":"object","additionalProperties":false},"http":{"method":"GET","path":"/cut"}}]`, name)
	if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name, "tools.json"), []byte(tools), 0o644); err != nil {
		t.Fatal(err)
	}
}

// leaks names the forms of secret found in s.
func leaks(s, secret string) []string {
	var out []string
	for form, v := range map[string]string{
		"plain":      secret,
		"base64":     base64.StdEncoding.EncodeToString([]byte(secret)),
		"base64 url": base64.RawURLEncoding.EncodeToString([]byte(secret))[4:],
		"hex":        hex.EncodeToString([]byte(secret)),
		"HEX":        strings.ToUpper(hex.EncodeToString([]byte(secret))),
		"half":       secret[len(secret)/2:],
	} {
		if strings.Contains(s, v) {
			out = append(out, form)
		}
	}
	return out
}

// A plugin tool's result and error reach the agent (executions.Service.Run, as execute_tools calls
// it) with every form of the credential the call used redacted: the OAuth access token as fetched
// for the call (also one refreshed during it), an API key and a Basic pair made of it, a session
// cookie. The audit record's digest is of what the
// agent got.
func TestToolResultsAreRedacted(t *testing.T) {
	echo := newEchoProvider(t)
	const apiKey, cookieValue = "key-0123456789abcdef", "sess-fedcba9876543210"
	e := newEnvWith(t, "basic", envOptions{
		acmeBase: func(*provider) string { return echo.srv.URL },
		extra: func(dir string, _ *provider) {
			echoTools(t, dir, "acme")
			writePlugin(t, dir, "keyecho", fmt.Sprintf(`{"name":"keyecho","version":"1","display_name":"Key echo","description":"test","base_url":%q,
				"auth":{"mode":"apikey","apikey":{"fields":[{"name":"user","label":"User"},{"name":"api_key","label":"API key","secret":true}],
				"inject":{"in":"header","name":"X-Api-Key","field":"api_key"}}}}`, echo.srv.URL))
			echoTools(t, dir, "keyecho")
			writePlugin(t, dir, "cookieecho", fmt.Sprintf(`{"name":"cookieecho","version":"1","display_name":"Cookie echo","description":"test","base_url":%q,
				"auth":{"mode":"cookie","cookie":{"domains":["127.0.0.1"]}}}`, echo.srv.URL))
			echoTools(t, dir, "cookieecho")
		},
	})
	n := e.node(true)
	ex, err := executions.New(executions.Options{Registry: e.catalog, Credentials: n.svc, Store: n.store})
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	caller := executions.Caller{UserID: user, Via: "api_key", ClientID: "key-1"}

	// run runs tool and checks that neither the result nor the message holds any of secrets.
	run := func(t *testing.T, tool string, wantCode string, secrets ...string) executions.Outcome {
		t.Helper()
		o := ex.Run(e.ctx, caller, []executions.Call{{Tool: tool}})[0]
		if o.Code != wantCode || o.Withheld {
			t.Fatalf("%s: %+v, want code %q", tool, o, wantCode)
		}
		got := string(o.Result) + o.Message
		for _, s := range secrets {
			if f := leaks(got, s); len(f) > 0 {
				t.Errorf("%s: the agent sees the secret %q (%v) in %s", tool, s, f, got)
			}
		}
		if !strings.Contains(got, connections.Redacted) {
			t.Errorf("%s: nothing redacted in %s", tool, got)
		}
		if o.Result != nil && !json.Valid(o.Result) {
			t.Errorf("%s: the redacted result is not JSON: %s", tool, o.Result)
		}
		return o
	}
	lastSeen := func(t *testing.T) string {
		t.Helper()
		s := echo.credentials()
		if len(s) == 0 || s[len(s)-1] == "" {
			t.Fatalf("the provider saw no credential: %q", s)
		}
		return s[len(s)-1]
	}

	t.Run("oauth2", func(t *testing.T) {
		n.connectOAuth(e.ctx, user)
		o := run(t, "acme_me", "")
		tok := lastSeen(t)
		if f := leaks(string(o.Result), tok); len(f) > 0 {
			t.Fatalf("token leaked: %v", f)
		}
		var body map[string]string
		if err := json.Unmarshal(o.Result, &body); err != nil || body["ok"] != "nothing secret here" || body["authorization"] != "Bearer "+connections.Redacted {
			t.Fatalf("result: %s (%v)", o.Result, err)
		}
		run(t, "acme_fail", executions.CodeToolError, tok)
		o = run(t, "acme_cut", executions.CodeToolError)
		if up := strings.ToUpper(tok); strings.Contains(o.Message, up[:6]) || !strings.HasSuffix(o.Message, connections.Redacted+"…") {
			t.Fatalf("the beginning of the token is left before the cut: %s", o.Message)
		}
	})

	t.Run("oauth2 token refreshed during the call", func(t *testing.T) {
		other := uuid.New()
		connectExpiring(t, e, n, other)
		before := e.provider.refreshes()
		o := ex.Run(e.ctx, executions.Caller{UserID: other, Via: "api_key"}, []executions.Call{{Tool: "acme_me"}})[0]
		if e.provider.refreshes() == before {
			t.Fatal("the call did not refresh the token")
		}
		if f := leaks(string(o.Result), lastSeen(t)); len(f) > 0 || !strings.Contains(string(o.Result), connections.Redacted) {
			t.Fatalf("the refreshed token leaked (%v): %s", f, o.Result)
		}
	})

	t.Run("apikey and its Basic pair", func(t *testing.T) {
		if err := n.svc.ConnectAPIKey(e.ctx, user, "keyecho", "", map[string]string{"user": "alice", "api_key": apiKey}); err != nil {
			t.Fatal(err)
		}
		o := run(t, "keyecho_me", "", apiKey)
		if strings.Contains(string(o.Result), base64.StdEncoding.EncodeToString([]byte("alice:"+apiKey))) {
			t.Fatalf("Basic pair leaked: %s", o.Result)
		}
		run(t, "keyecho_fail", executions.CodeToolError, apiKey)
	})

	t.Run("cookie", func(t *testing.T) {
		exp := time.Now().Add(time.Hour)
		if _, err := n.svc.ConnectCookies(e.ctx, user, "cookieecho", "", []connections.Cookie{
			{Name: "session", Value: cookieValue, Domain: "127.0.0.1", Path: "/", Expires: exp},
		}); err != nil {
			t.Fatal(err)
		}
		run(t, "cookieecho_me", "", cookieValue)
		run(t, "cookieecho_fail", executions.CodeToolError, cookieValue)
	})

	// The records' result digests are of what the agent got.
	t.Run("digest", func(t *testing.T) {
		o := ex.Run(e.ctx, caller, []executions.Call{{Tool: "acme_me"}})[0]
		if o.Code != "" {
			t.Fatalf("%+v", o)
		}
		_, want := execution.Digest(o.Result)
		envs, err := n.store.ReadAll(e.ctx, eventstore.Start, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var ev execution.ToolExecuted
		for _, env := range envs {
			if env.Type == execution.TypeToolExecuted {
				ev = execution.ToolExecuted{}
				if err := json.Unmarshal(env.Data, &ev); err != nil {
					t.Fatal(err)
				}
			}
		}
		if ev.ResultSHA256 != want || ev.ResultSize != len(o.Result) {
			t.Fatalf("recorded %d bytes %s, the agent got %d bytes %s", ev.ResultSize, ev.ResultSHA256, len(o.Result), want)
		}
	})
}

// A refresh that fails during a tool call answers the agent with the token endpoint's
// error_description: the refresh token presented, quoted there, is redacted.
func TestFailedRefreshMessageIsRedacted(t *testing.T) {
	var prov *provider
	var presented []string
	var mu sync.Mutex
	tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			t.Error(err)
		}
		if rt := r.PostForm.Get("refresh_token"); rt != "" {
			mu.Lock()
			presented = append(presented, rt)
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_request", "error_description": "refresh token " + rt + " is malformed"})
			return
		}
		// The code exchange goes to the fake authorization server.
		body := r.PostForm.Encode()
		r.Body, r.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
		u, _ := url.Parse(prov.srv.URL)
		httputil.NewSingleHostReverseProxy(u).ServeHTTP(w, r)
	}))
	t.Cleanup(tokens.Close)
	echo := newEchoProvider(t)
	e := newEnvWith(t, "basic", envOptions{extra: func(dir string, p *provider) {
		prov = p
		writePlugin(t, dir, "acme", fmt.Sprintf(`{"name":"acme","version":"1","display_name":"Acme","description":"test","base_url":%q,
			"auth":{"mode":"oauth2","oauth2":{"authorize_url":%q,"token_url":%q,"scopes":["read","write"],"authorize_params":{"prompt":"consent"},"token_auth_style":"basic"}}}`,
			echo.srv.URL, p.srv.URL+"/authorize", tokens.URL+"/token"))
		echoTools(t, dir, "acme")
	}})
	n := e.node(true)
	ex, err := executions.New(executions.Options{Registry: e.catalog, Credentials: n.svc, Store: n.store})
	if err != nil {
		t.Fatal(err)
	}
	user := uuid.New()
	connectExpiring(t, e, n, user)
	o := ex.Run(e.ctx, executions.Caller{UserID: user, Via: "api_key"}, []executions.Call{{Tool: "acme_me"}})[0]
	mu.Lock()
	defer mu.Unlock()
	if len(presented) == 0 {
		t.Fatalf("no refresh was tried: %+v", o)
	}
	if o.Code == "" || strings.Contains(o.Message, presented[0]) || !strings.Contains(o.Message, "refresh token "+connections.Redacted) {
		t.Fatalf("outcome: %+v", o)
	}
}
