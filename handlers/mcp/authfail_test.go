package mcp

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

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

// failingEnds is a session store whose log cannot take the end of a session.
type failingEnds struct{ err error }

func (failingEnds) Ended(context.Context, string) (bool, error)    { return false, nil }
func (f failingEnds) End(context.Context, string, time.Time) error { return f.err }

// TestEndSessionDuringOutage: a DELETE whose end cannot be recorded because the database is
// unavailable is 503 with Retry-After (the client may retry), not 500; another failure stays 500.
func TestEndSessionDuringOutage(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
	}{
		{"database down", &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}, http.StatusServiceUnavailable},
		{"coded unavailable", domain.Errorf(domain.CodeUnavailable, "the log is unavailable"), http.StatusServiceUnavailable},
		{"anything else", errors.New("boom"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := New(Options{
				Auth:       AuthenticatorFunc(func(*http.Request) (Principal, error) { return Principal{UserID: "u"}, nil }),
				Tools:      fakeTools{},
				SessionKey: bytes.Repeat([]byte("k"), 32),
				Sessions:   failingEnds{tt.err},
			})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(srv)
			defer ts.Close()
			resp, body := do(t, ts.URL, exchange{method: "POST", headers: map[string]string{"Authorization": "Bearer x"},
				body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`})
			sid := resp.Header.Get("Mcp-Session-Id")
			if resp.StatusCode != http.StatusOK || sid == "" {
				t.Fatalf("initialize: %d %s", resp.StatusCode, body)
			}
			resp, body = do(t, ts.URL, exchange{method: "DELETE", headers: map[string]string{"Authorization": "Bearer x", "Mcp-Session-Id": sid}})
			if resp.StatusCode != tt.status || (resp.Header.Get("Retry-After") != "") != (tt.status == http.StatusServiceUnavailable) {
				t.Fatalf("DELETE: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		})
	}
}
