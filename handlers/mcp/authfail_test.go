package mcp

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/workbench/workbench/domain"
)

type scopeErr struct{}

func (scopeErr) Error() string         { return "no mcp scope" }
func (scopeErr) RequiredScope() string { return "mcp" }

// TestAuthFailureStatuses: what the authenticator says decides the answer: a credential that could
// not be checked is 503 with Retry-After and no challenge; a token without the scope is 403
// insufficient_scope naming it; a bad credential is 401 invalid_token.
func TestAuthFailureStatuses(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		status   int
		www      []string
		retry    bool
		noWWW    bool
		rpcError string
	}{
		{"database down", &domain.Error{Code: domain.CodeUnavailable, Message: "down", Err: errors.New("connection refused")},
			http.StatusServiceUnavailable, nil, true, true, "Service Unavailable"},
		{"wrong scope", scopeErr{}, http.StatusForbidden,
			[]string{`error="insufficient_scope"`, `scope="mcp"`, `resource_metadata="https://wb.example.com/.well-known/oauth-protected-resource/mcp"`}, false, false, "Forbidden"},
		{"bad token", domain.Errorf(domain.CodeUnauthenticated, "expired"), http.StatusUnauthorized,
			[]string{`error="invalid_token"`, `resource_metadata=`}, false, false, "Unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(Options{
				Auth:                AuthenticatorFunc(func(*http.Request) (Principal, error) { return Principal{}, tt.err }),
				Tools:               fakeTools{},
				SessionKey:          bytes.Repeat([]byte("k"), 32),
				ResourceMetadataURL: "https://wb.example.com/.well-known/oauth-protected-resource/mcp",
			})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			for _, method := range []string{"POST", "DELETE"} {
				resp, body := do(t, ts.URL, exchange{method: method, headers: map[string]string{"Authorization": "Bearer x", "Mcp-Session-Id": "s"},
					body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`})
				www := resp.Header.Get("WWW-Authenticate")
				if resp.StatusCode != tt.status || (resp.Header.Get("Retry-After") != "") != tt.retry || (www == "") != tt.noWWW {
					t.Fatalf("%s: %d Retry-After %q WWW-Authenticate %q", method, resp.StatusCode, resp.Header.Get("Retry-After"), www)
				}
				for _, w := range tt.www {
					if !strings.Contains(www, w) {
						t.Fatalf("%s: WWW-Authenticate %q lacks %s", method, www, w)
					}
				}
				if !strings.Contains(body, tt.rpcError) {
					t.Fatalf("%s: body %s", method, body)
				}
			}
		})
	}
}
