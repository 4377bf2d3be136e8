package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/workbench/workbench/domain"
)

func TestPathArgumentsAreEscaped(t *testing.T) {
	r := builtinRegistry(t)
	tests := []struct {
		name, owner, repo string
		wantRawPath       string
		wantErr           string
	}{
		{"plain", "octocat", "Hello-World", "/repos/octocat/Hello-World", ""},
		{"slash cannot add a segment", "../../admin", "x", "/repos/..%2F..%2Fadmin/x", ""},
		{"query and fragment stay in the path", "a?b=1#c", "x", "/repos/a%3Fb=1%23c/x", ""},
		{"percent is escaped, not decoded", "%2e%2e", "x", "/repos/%252e%252e/x", ""},
		{"host-looking value stays a segment", "@evil.test", "x", "/repos/@evil.test/x", ""},
		{"space", "my org", "x", "/repos/my%20org/x", ""},
		{"dot-dot refused", "..", "x", "", "github_get_repo: path argument owner may not be \"..\""},
		{"dot refused", "octocat", ".", "", "github_get_repo: path argument repo may not be \".\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake, seen := newFakeProvider(t, func(w http.ResponseWriter, r *http.Request, _ []byte) {
				writeJSON(w, 200, map[string]any{"full_name": "octocat/Hello-World"})
			})
			args, _ := json.Marshal(map[string]string{"owner": tc.owner, "repo": tc.repo})
			_, err := call(t, r, "github_get_repo", string(args), contextFor(t, r, "github_get_repo", fake))
			if tc.wantErr != "" {
				if err == nil || domain.ErrorMessage(err) != tc.wantErr || domain.ErrorCode(err) != domain.CodeInvalid {
					t.Fatalf("want %q, got %v", tc.wantErr, err)
				}
				if len(*seen) != 0 {
					t.Fatal("a refused request reached the provider")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := (*seen)[0]; got.RawPath != tc.wantRawPath || got.Host != "api.github.com" {
				t.Errorf("provider saw %s%s, want api.github.com%s", got.Host, got.RawPath, tc.wantRawPath)
			}
		})
	}
}

// localPlugin loads one declarative plugin from a temp PLUGINS_DIR pointing at a plain-HTTP loopback fake.
func localPlugin(t *testing.T, baseURL, manifestExtra, tools string, opts Options) *Registry {
	t.Helper()
	dir := t.TempDir()
	writePlugin(t, dir, "local",
		`{"name":"local","version":"1","display_name":"Local API","description":"d","base_url":"`+baseURL+`"`+manifestExtra+`}`, tools)
	opts.PluginsDir, opts.AllowInsecureHTTP = dir, true
	r, problems := Load(t.Context(), opts)
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return r
}

const localGet = `[{"name":"local_get","description":"d","input_schema":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},
  "http":{"method":"GET","path":"/items/{id}"}}]`

func TestProviderErrors(t *testing.T) {
	long := strings.Repeat("é", 400)
	tests := []struct {
		name     string
		status   int
		body     string
		wantMsg  string
		wantCode domain.Code
	}{
		{"github style message", 404, `{"message":"Not Found","documentation_url":"https://docs.github.com/rest"}`,
			"local_get: Local API answered HTTP 404: Not Found", domain.CodeNotFound},
		{"oauth style error", 401, `{"error":"invalid_token","error_description":"The access token expired"}`,
			"local_get: Local API answered HTTP 401: The access token expired", domain.CodeForbidden},
		{"graphql style errors", 400, `{"errors":[{"message":"Field 'x' doesn't exist"},{"message":"Second"}]}`,
			"local_get: Local API answered HTTP 400: Field 'x' doesn't exist; Second", domain.CodeInvalid},
		{"plain text", 502, "Bad gateway\n", "local_get: Local API answered HTTP 502: Bad gateway", domain.CodeUnavailable},
		{"empty body", 429, "", "local_get: Local API answered HTTP 429: Too Many Requests", domain.CodeUnavailable},
		{"long message truncated on a rune boundary", 422, `{"message":"` + long + `"}`,
			"local_get: Local API answered HTTP 422: " + strings.Repeat("é", 150) + "…", domain.CodeInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			r := localPlugin(t, srv.URL, `,"auth":{"mode":"none"}`, localGet, Options{})
			_, err := call(t, r, "local_get", `{"id":"1"}`, ContextOptions{})
			if domain.ErrorMessage(err) != tc.wantMsg || domain.ErrorCode(err) != tc.wantCode {
				t.Fatalf("got %q (%s), want %q (%s)", domain.ErrorMessage(err), domain.ErrorCode(err), tc.wantMsg, tc.wantCode)
			}
			var ue *UpstreamError
			if !errors.As(err, &ue) || ue.Status != tc.status {
				t.Errorf("want an UpstreamError with status %d, got %#v", tc.status, err)
			}
		})
	}
}

func TestResponseSizeCap(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data":"` + strings.Repeat("x", 2000) + `"}`))
	}))
	defer srv.Close()
	r := localPlugin(t, srv.URL, `,"auth":{"mode":"none"}`, localGet, Options{MaxResponseBytes: 1024})
	_, err := call(t, r, "local_get", `{"id":"1"}`, ContextOptions{})
	if domain.ErrorMessage(err) != "local_get: the response from Local API is larger than 1024 bytes" {
		t.Fatalf("got %v", err)
	}
}

func TestGraphQLErrorsOn200AndBodyCursor(t *testing.T) {
	tools := `[{"name":"local_search","description":"d","input_schema":{"type":"object","properties":{"q":{"type":"string"},"cursor":{"type":"string"}}},
	  "http":{"method":"POST","path":"/graphql","body":{"query":"query($q: String, $c: String) { search(q: $q, cursor: $c) { results { id name tags { name } } nextCursor } }","variables":{"q":{"$arg":"q"},"c":{"$arg":"cursor"}}},
	  "response":{"pointer":"/data/search/results","fields":["id","tags.name"],"cursor":{"from":"body","pointer":"/data/search/nextCursor"},"error_pointer":"/errors"}}}]`
	tests := []struct {
		name, respond, want, wantErr, wantBody string
		args                                   string
	}{
		{"results and cursor", `{"data":{"search":{"results":[{"id":1,"name":"a","tags":[{"name":"x","id":9}]},{"id":2,"name":"b","tags":null}],"nextCursor":"abc"}}}`,
			`{"items":[{"id":1,"tags":[{"name":"x"}]},{"id":2,"tags":null}],"next_cursor":"abc"}`, "",
			`{"query":"query($q: String, $c: String) { search(q: $q, cursor: $c) { results { id name tags { name } } nextCursor } }","variables":{"q":"k"}}`, `{"q":"k"}`},
		{"last page has no cursor", `{"data":{"search":{"results":[],"nextCursor":null}}}`, `{"items":[]}`, "", "", `{"q":"k","cursor":"abc"}`},
		{"errors on 200", `{"data":null,"errors":[{"message":"NRQL Syntax Error: Error at line 1"}]}`, "",
			"local_search: Local API answered with errors: NRQL Syntax Error: Error at line 1", "", `{}`},
		{"missing pointer", `{"data":{}}`, "", "local_search: the response from Local API has no value at /data/search/results", "", `{}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var gotBody []byte
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				gotBody = make([]byte, r.ContentLength)
				_, _ = r.Body.Read(gotBody)
				_, _ = w.Write([]byte(tc.respond))
			}))
			defer srv.Close()
			r := localPlugin(t, srv.URL, `,"auth":{"mode":"none"}`, tools, Options{})
			out, err := call(t, r, "local_search", tc.args, ContextOptions{})
			if tc.wantErr != "" {
				if domain.ErrorMessage(err) != tc.wantErr {
					t.Fatalf("got %v, want %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tc.want {
				t.Errorf("result %s, want %s", out, tc.want)
			}
			if tc.wantBody != "" && string(gotBody) != tc.wantBody {
				t.Errorf("body %s, want %s", gotBody, tc.wantBody)
			}
		})
	}
}

func TestOutboundRequestsStayOnTheBaseURL(t *testing.T) {
	evilHits := 0
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { evilHits++ }))
	defer evil.Close()
	var sawKey string
	good := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawKey = r.URL.Query().Get("key")
		if r.URL.Path == "/items/redirect" {
			http.Redirect(w, r, evil.URL+"/steal", http.StatusFound)
			return
		}
		_, _ = w.Write([]byte(`{"ok":1}`))
	}))
	defer good.Close()
	apikey := `,"auth":{"mode":"apikey","apikey":{"fields":[{"name":"key","label":"Key","secret":true}],"inject":{"in":"query","name":"key"}}}`
	r := localPlugin(t, good.URL, apikey, localGet, Options{})
	in, _ := r.Integration("local")
	inj, err := in.APIKeyInjector(map[string]string{"key": "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	opts := ContextOptions{Injector: inj}

	t.Run("the credential is injected as the manifest says", func(t *testing.T) {
		if _, err := call(t, r, "local_get", `{"id":"1"}`, opts); err != nil || sawKey != "s3cret" {
			t.Fatalf("err %v, key %q", err, sawKey)
		}
	})
	t.Run("a redirect to another host is refused", func(t *testing.T) {
		_, err := call(t, r, "local_get", `{"id":"redirect"}`, opts)
		if err == nil || !strings.Contains(domain.ErrorMessage(err), "redirect to "+origin(mustURL(t, evil.URL))+" refused") || evilHits != 0 {
			t.Fatalf("err %v, evil hits %d", err, evilHits)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("error leaks the key: %v", err)
		}
	})
	t.Run("a handler cannot reach another host with the client", func(t *testing.T) {
		rc := NewContext(in, opts)
		resp, err := rc.HTTP().Get(evil.URL + "/steal")
		if err == nil {
			resp.Body.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "may only reach "+good.URL) || evilHits != 0 {
			t.Fatalf("err %v, evil hits %d", err, evilHits)
		}
	})
	t.Run("an integration without base_url reaches nothing", func(t *testing.T) {
		reg := builtinRegistry(t)
		utils, _ := reg.Integration("utils")
		resp, err := NewContext(utils, ContextOptions{}).HTTP().Get(good.URL)
		if err == nil {
			resp.Body.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "declares no base_url") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("a failed connection does not echo the injected key", func(t *testing.T) {
		down := httptest.NewServer(http.NotFoundHandler())
		down.Close()
		reg := localPlugin(t, down.URL, apikey, localGet, Options{})
		in, _ := reg.Integration("local")
		inj, _ := in.APIKeyInjector(map[string]string{"key": "s3cret"})
		_, err := call(t, reg, "local_get", `{"id":"1"}`, ContextOptions{Injector: inj})
		if err == nil || domain.ErrorCode(err) != domain.CodeUnavailable || strings.Contains(domain.ErrorMessage(err), "s3cret") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestInjectorErrorsReachTheCaller(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { t.Error("request sent without a credential") }))
	defer srv.Close()
	r := localPlugin(t, srv.URL, `,"auth":{"mode":"none"}`, localGet, Options{})
	notConnected := &domain.Error{Code: domain.CodeNotConnected, Message: "reconnect local"}
	_, err := call(t, r, "local_get", `{"id":"1"}`, ContextOptions{Injector: BearerInjector(func(context.Context) (string, error) { return "", notConnected })})
	if domain.ErrorCode(err) != domain.CodeNotConnected || domain.ErrorMessage(err) != "reconnect local" {
		t.Fatalf("got %v", err)
	}
}

func TestGoHandlerFailures(t *testing.T) {
	dir := t.TempDir()
	writePlugin(t, dir, "boom", noneManifest("boom"), `[`+goTool("boom_panic")+`,`+goTool("boom_plain")+`]`)
	r, problems := Load(t.Context(), Options{PluginsDir: dir, Handlers: map[string]Handler{
		"boom_panic": func(context.Context, Context, json.RawMessage) (any, error) { panic("kaboom") },
		"boom_plain": func(context.Context, Context, json.RawMessage) (any, error) { return nil, errors.New("disk full") },
	}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	quiet := ContextOptions{Logger: slog.New(slog.DiscardHandler)}
	if _, err := call(t, r, "boom_panic", `{}`, quiet); domain.ErrorMessage(err) != "boom_panic failed: internal error" {
		t.Errorf("panic: %v", err)
	}
	if _, err := call(t, r, "boom_plain", `{}`, quiet); domain.ErrorMessage(err) != "boom_plain failed: disk full" {
		t.Errorf("plain error: %v", err)
	}
	t.Run("context of another integration", func(t *testing.T) {
		reg := builtinRegistry(t)
		echo, _ := reg.Tool("utils_echo")
		gh, _ := reg.Integration("github")
		if _, err := reg.Execute(t.Context(), echo, NewContext(gh, ContextOptions{}), json.RawMessage(`{"message":"x"}`)); err == nil {
			t.Error("a context made for github ran a utils tool")
		}
	})
	t.Run("GetToken without a token", func(t *testing.T) {
		reg := builtinRegistry(t)
		gh, _ := reg.Integration("github")
		if _, err := NewContext(gh, ContextOptions{}).GetToken(t.Context()); domain.ErrorCode(err) != domain.CodeNotConnected {
			t.Errorf("got %v", err)
		}
	})
}

func TestAPIKeyInjectorSetsEveryInjection(t *testing.T) {
	var seen http.Header
	var query url.Values
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, query = r.Header.Clone(), r.URL.Query()
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	apikey := `,"auth":{"mode":"apikey","apikey":{"fields":[{"name":"api_key","label":"API key","secret":true},
		{"name":"app_key","label":"Application key","secret":true},{"name":"org","label":"Org"}],
		"inject":{"in":"header","name":"DD-API-KEY","field":"api_key"},
		"extra_inject":[{"in":"header","name":"DD-APPLICATION-KEY","field":"app_key"},{"in":"query","name":"org","field":"org"}]}}`
	r := localPlugin(t, srv.URL, apikey, localGet, Options{})
	in, _ := r.Integration("local")
	tests := []struct {
		name    string
		fields  map[string]string
		missing string
	}{
		{name: "all present", fields: map[string]string{"api_key": "k1", "app_key": "k2", "org": "acme"}},
		{name: "an extra injected field missing", fields: map[string]string{"api_key": "k1", "org": "acme"}, missing: "app_key"},
		{name: "the main field missing", fields: map[string]string{"app_key": "k2", "org": "acme"}, missing: "api_key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inj, err := in.APIKeyInjector(tc.fields)
			if tc.missing != "" {
				if domain.ErrorCode(err) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(err), tc.missing) {
					t.Fatalf("got %v, want NOT_CONNECTED naming %s", err, tc.missing)
				}
				return
			}
			if _, err := call(t, r, "local_get", `{"id":"1"}`, ContextOptions{Injector: inj}); err != nil {
				t.Fatal(err)
			}
			if seen.Get("DD-API-KEY") != "k1" || seen.Get("DD-APPLICATION-KEY") != "k2" || query.Get("org") != "acme" {
				t.Fatalf("headers %v query %v", seen, query)
			}
		})
	}
}

// The context's logger is tagged with the integration and the user (the tagging is done when a
// handler asks for it, not for every call).
func TestContextLoggerTags(t *testing.T) {
	reg := builtinRegistry(t)
	utils, _ := reg.Integration("utils")
	var buf strings.Builder
	rc := NewContext(utils, ContextOptions{UserID: "u-1", Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	rc.Logger().Info("hello")
	if out := buf.String(); !strings.Contains(out, "integration=utils") || !strings.Contains(out, "user=u-1") || !strings.Contains(out, "msg=hello") {
		t.Errorf("log line = %q, want the integration and the user", out)
	}
	// Without a logger it discards.
	NewContext(utils, ContextOptions{}).Logger().Info("dropped")
}
