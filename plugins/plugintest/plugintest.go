// Package plugintest is the contract-test machinery the provider packages share (plugins/<provider>/
// contract_test.go): a fake provider host, a registry of one provider's plugin folder, and Contracts,
// which calls each of the provider's tools against the fake and checks the request exactly as the
// provider documents it (method, host, path, query, headers, body) and the agent's result.
package plugintest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/plugins"
)

// Case is one tool called against a fake that checks the request exactly as the provider documents it.
type Case struct {
	Tool string
	Args string
	// the request the provider must receive (declarative tools and Go handlers alike); Method "" means
	// the tool makes no request (utils)
	Method, Path, Query string
	Header              map[string]string
	Body                string // JSON; "" means no body
	// the provider's answer
	Status   int
	Respond  any
	LinkNext string
	// what the agent gets back, compared as JSON; Check replaces it for a result that moves (a clock,
	// random ids)
	Want  string
	Check func(t *testing.T, out json.RawMessage)
}

// Credentials are what a provider's fake expects from the connection.
type Credentials struct {
	// Token is the bearer token of an oauth2 integration ("contract-token" when empty).
	Token string
	// APIKeys are the portal fields of an apikey integration.
	APIKeys map[string]string
	// Credential holds the post-consent values (auth.oauth2.post_consent), passed as
	// ContextOptions.Credential.
	Credential map[string]string
}

// Fake is a TLS httptest server standing in for a provider's real host: its Transport dials the fake
// whatever host the URL names, and verifies the fake's certificate, so the request the fake sees
// carries the real Host (api.github.com) exactly as the provider would receive it.
type Fake struct {
	Transport http.RoundTripper
}

// Request is what the fake recorded of one request.
type Request struct {
	Method, Host, Path, RawPath, RawQuery string
	Header                                http.Header
	Body                                  []byte
}

// NewFake starts a fake provider answering with handler; the returned slice grows with every request.
func NewFake(t *testing.T, handler func(w http.ResponseWriter, r *http.Request, body []byte)) (*Fake, *[]Request) {
	t.Helper()
	var seen []Request
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		seen = append(seen, Request{Method: r.Method, Host: r.Host, Path: r.URL.Path, RawPath: r.URL.EscapedPath(),
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
	return &Fake{Transport: tr}, &seen
}

// WriteJSON answers with status and v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// JSON decodes a JSON literal for a fake's response (Case.Respond); a literal that is not JSON is a
// mistake in the test and panics.
func JSON(s string) any {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(fmt.Sprintf("plugintest.JSON: %v: %s", err, s))
	}
	return v
}

// MustJSON decodes s for comparisons that ignore key order.
func MustJSON(t *testing.T, s []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatalf("not JSON: %s: %v", s, err)
	}
	return v
}

// Registry loads one provider's plugin folder (its Plugin()) as the server loads the built-ins.
func Registry(t *testing.T, b plugins.Builtin) *plugins.Registry {
	t.Helper()
	r, problems := plugins.Load(t.Context(), plugins.Options{Builtins: []plugins.Builtin{b}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	return r
}

// ContextFor is the context of one call of tool with creds, its requests sent to fake (nil: none).
func ContextFor(t *testing.T, r *plugins.Registry, tool string, creds Credentials, fake *Fake) plugins.ContextOptions {
	t.Helper()
	tl, ok := r.Tool(tool)
	if !ok {
		t.Fatalf("no tool %s", tool)
	}
	opts := plugins.ContextOptions{UserID: "user-1", Credential: creds.Credential}
	if fake != nil {
		opts.Transport = fake.Transport
	}
	switch tl.Owner().Auth.Mode {
	case plugins.AuthOAuth2:
		token := creds.Token
		if token == "" {
			token = "contract-token"
		}
		getToken := func(context.Context) (string, error) { return token, nil }
		opts.GetToken, opts.Injector = getToken, plugins.BearerInjector(getToken)
	case plugins.AuthAPIKey:
		if creds.APIKeys == nil {
			t.Fatalf("no Credentials.APIKeys for %s", tl.Integration)
		}
		inj, err := tl.Owner().APIKeyInjector(creds.APIKeys)
		if err != nil {
			t.Fatal(err)
		}
		opts.Injector = inj
	}
	return opts
}

// Call validates args and executes tool name with a context built from opts.
func Call(t *testing.T, r *plugins.Registry, name string, args string, opts plugins.ContextOptions) (json.RawMessage, error) {
	t.Helper()
	tool, ok := r.Tool(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	valid, err := plugins.ValidateArgs(tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("ValidateArgs: %v", err)
	}
	return r.Execute(t.Context(), tool, plugins.NewContext(tool.Owner(), opts), valid)
}

// Contracts runs every case as a subtest named by its tool against the provider's plugin folder b, and
// fails for each of b's tools that has no case.
func Contracts(t *testing.T, b plugins.Builtin, creds Credentials, cases []Case) {
	t.Helper()
	r := Registry(t, b)
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.Tool] = true
		t.Run(tc.Tool, func(t *testing.T) {
			var fake *Fake
			var seen *[]Request
			if tc.Method != "" {
				fake, seen = NewFake(t, func(w http.ResponseWriter, r *http.Request, body []byte) {
					if tc.LinkNext != "" {
						w.Header().Set("Link", tc.LinkNext)
					}
					WriteJSON(w, tc.Status, tc.Respond)
				})
			}
			out, err := Call(t, r, tc.Tool, tc.Args, ContextFor(t, r, tc.Tool, creds, fake))
			if err != nil {
				t.Fatalf("execute: %v", err)
			}
			if tc.Method != "" {
				if len(*seen) != 1 {
					t.Fatalf("want one request, got %d", len(*seen))
				}
				got := (*seen)[0]
				tl, _ := r.Tool(tc.Tool)
				base, err := url.Parse(tl.Owner().BaseURL)
				if err != nil {
					t.Fatal(err)
				}
				wantHost := base.Host
				if got.Method != tc.Method || got.Host != wantHost || got.Path != tc.Path || got.RawQuery != tc.Query {
					t.Errorf("request %s https://%s%s?%s, want %s https://%s%s?%s", got.Method, got.Host, got.Path, got.RawQuery, tc.Method, wantHost, tc.Path, tc.Query)
				}
				for k, v := range tc.Header {
					if got.Header.Get(k) != v {
						t.Errorf("header %s = %q, want %q", k, got.Header.Get(k), v)
					}
				}
				if tc.Body == "" && len(got.Body) != 0 {
					t.Errorf("unexpected body %s", got.Body)
				}
				if tc.Body != "" {
					if diff := cmp.Diff(MustJSON(t, []byte(tc.Body)), MustJSON(t, got.Body)); diff != "" {
						t.Errorf("body (-want +got):\n%s", diff)
					}
				}
			}
			if tc.Check != nil {
				tc.Check(t, out)
				return
			}
			if diff := cmp.Diff(MustJSON(t, []byte(tc.Want)), MustJSON(t, out)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
	for _, tl := range r.Tools() {
		if !covered[tl.Name] {
			t.Errorf("tool %s has no contract case", tl.Name)
		}
	}
}
