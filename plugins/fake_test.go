package plugins

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// fakeProvider is a TLS httptest server standing in for a provider's real host: its transport dials the
// fake whatever host the URL names, and verifies the fake's certificate, so the request the fake sees
// carries the real Host (api.github.com) exactly as the provider would receive it.
type fakeProvider struct {
	srv       *httptest.Server
	transport http.RoundTripper
}

// seenRequest is what the fake recorded of one request.
type seenRequest struct {
	Method, Host, Path, RawPath, RawQuery string
	Header                                http.Header
	Body                                  []byte
}

func newFakeProvider(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, body []byte)) (*fakeProvider, *[]seenRequest) {
	t.Helper()
	var seen []seenRequest
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, seenRequest{Method: r.Method, Host: r.Host, Path: r.URL.Path, RawPath: r.URL.EscapedPath(),
			RawQuery: r.URL.RawQuery, Header: r.Header.Clone(), Body: body})
		handler(w, r, body)
	}))
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	addr := srv.Listener.Addr().String()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "example.com"}, // httptest's certificate names example.com
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &fakeProvider{srv: srv, transport: tr}, &seen
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// mustJSON decodes s for comparisons that ignore key order.
func mustJSON(t *testing.T, s []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatalf("not JSON: %s: %v", s, err)
	}
	return v
}

func builtinRegistry(t *testing.T) *Registry {
	t.Helper()
	r, problems := Load(t.Context(), Options{Builtins: shippedBuiltins(t)})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return r
}

// call validates args and executes tool name with a context built from opts.
func call(t *testing.T, r *Registry, name string, args string, opts ContextOptions) (json.RawMessage, error) {
	t.Helper()
	tool, ok := r.Tool(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	valid, err := ValidateArgs(tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("ValidateArgs: %v", err)
	}
	return r.Execute(t.Context(), tool, NewContext(tool.Owner(), opts), valid)
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// Credentials the runtime's own tests use with the real provider folders (each provider's contract test,
// plugins/<provider>/contract_test.go, has its own).
const (
	datadogAPIKey = "9775a026f1ca7d1c6c5af9d94d9595a4"
	datadogAppKey = "dd0fd9d0a2a4e3cc7b0c3e2aa2f5e1f1cbd3ff0e"
)

// testAPIKeys are the portal fields of the apikey integrations these tests call.
var testAPIKeys = map[string]map[string]string{
	"newrelic":  {"api_key": "NRAK-contract"},
	"pagerduty": {"api_key": "y_NbAkKc66ryYTWUXYEu"},
	"datadog":   {"api_key": datadogAPIKey, "application_key": datadogAppKey},
}

// contextFor is the context of one call of tool, its requests sent to fake (nil: none): a bearer
// token for oauth2 integrations, testAPIKeys for apikey ones.
func contextFor(t *testing.T, r *Registry, tool string, fake *fakeProvider) ContextOptions {
	t.Helper()
	tl, _ := r.Tool(tool)
	opts := ContextOptions{UserID: "user-1"}
	if fake != nil {
		opts.Transport = fake.transport
	}
	switch tl.Owner().Auth.Mode {
	case AuthOAuth2:
		getToken := func(context.Context) (string, error) { return "contract-token", nil }
		opts.GetToken, opts.Injector = getToken, BearerInjector(getToken)
	case AuthAPIKey:
		fields, ok := testAPIKeys[tl.Integration]
		if !ok {
			t.Fatalf("no testAPIKeys entry for %s", tl.Integration)
		}
		inj, err := tl.Owner().APIKeyInjector(fields)
		if err != nil {
			t.Fatal(err)
		}
		opts.Injector = inj
	}
	return opts
}
