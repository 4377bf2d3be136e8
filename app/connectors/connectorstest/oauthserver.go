package connectorstest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/internal/testenv"
)

// OAuthServer is a remote MCP server behind OAuth 2.1, as connectors meet it: the test environment's
// fake authorization server (RFC 8414 metadata, RFC 7591 registration of public clients, PKCE S256,
// RFC 8707 resource, refresh tokens rotated; it fails the test on a request that breaks them), and
// beside it a resource server, an MCP server (the official Go SDK's) accepting the access tokens the
// authorization server issued, with RFC 9728 metadata.
//
// The exported fields are what the documents say and what the authorization server demands; a test
// changes them with Set (to make the documents lie) and reads the counters with Count.
type OAuthServer struct {
	t  testing.TB
	AS *httptest.Server
	RS *httptest.Server
	p  *testenv.OAuthProvider

	mu                                                     sync.Mutex
	Issuer, Resource, ResourceMetadataURL, AuthServerInPRM string
	NoRegistration, Deny                                   bool
	// NoResource makes it a provider that takes no RFC 8707 resource (Google): a resource parameter
	// is then an error.
	NoResource bool
	// AuthMethods is the metadata's token_endpoint_auth_methods_supported.
	AuthMethods []string
	// Registrations and Refreshes count the authorization server's registrations and refresh
	// requests; Unauthorized the resource server's 401s. ClientAuth is how the last token request
	// authenticated its client: none, basic or post. Count fills them in.
	Registrations, Refreshes, Unauthorized int
	ClientAuth                             string
	// Bearers are the access tokens the resource server accepted, in order.
	Bearers []string
}

// NewOAuthServer starts the authorization server and its resource server on loopback.
func NewOAuthServer(t testing.TB) *OAuthServer {
	a := &OAuthServer{t: t, p: testenv.NewOAuthProvider(t), AuthMethods: []string{testenv.AuthNone}}
	a.AS = a.p.Server()
	srv := mcp.NewServer(&mcp.Implementation{Name: "oauth-remote", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	a.RS = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" { // RFC 9728 section 3
			a.mu.Lock()
			doc := map[string]any{"resource": a.Resource, "authorization_servers": []string{a.AuthServerInPRM}, "bearer_methods_supported": []string{"header"}}
			a.mu.Unlock()
			writeJSON(w, http.StatusOK, doc)
			return
		}
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !a.p.Live(tok) {
			a.mu.Lock()
			a.Unauthorized++
			md := a.ResourceMetadataURL
			a.mu.Unlock()
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, md))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		a.mu.Lock()
		a.Bearers = append(a.Bearers, tok)
		a.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.RS.Close)
	a.Issuer, a.AuthServerInPRM = a.AS.URL, a.AS.URL
	a.Resource = a.RS.URL + "/mcp"
	a.ResourceMetadataURL = a.RS.URL + "/.well-known/oauth-protected-resource/mcp"
	a.apply()
	return a
}

// Issued lists the tokens the authorization server issued, in order.
func (a *OAuthServer) Issued() []testenv.IssuedToken { return a.p.Issued() }

// apply hands the fields the authorization server acts on to it; the caller holds a.mu or owns a.
func (a *OAuthServer) apply() {
	resource := a.RS.URL + "/mcp"
	if a.NoResource {
		resource = ""
	}
	a.p.Set(func(s *testenv.OAuthSettings) {
		s.Metadata, s.Registration = true, !a.NoRegistration
		s.Issuer, s.Deny, s.AuthMethods = a.Issuer, a.Deny, a.AuthMethods
		s.Expect = map[string]string{"prompt": "consent", "resource": resource}
	})
}

// AddClient registers a confidential client for redirect by hand (as an operator does at a provider's
// console) and returns its id and secret.
func (a *OAuthServer) AddClient(redirect string) (id, secret string) {
	return a.p.NewConfidentialClient(redirect)
}

// RevokeAccess forgets every access token (the next call is a 401); RevokeAll forgets the refresh
// tokens too (the next refresh is invalid_grant).
func (a *OAuthServer) RevokeAccess() { a.p.RevokeAccess() }
func (a *OAuthServer) RevokeAll()    { a.p.RevokeAll() }

// Set changes the fields under the lock and hands them to the authorization server.
func (a *OAuthServer) Set(f func(a *OAuthServer)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fill()
	f(a)
	a.apply()
}

// Count reads a counter, filled in from the authorization server.
func (a *OAuthServer) Count(f func(a *OAuthServer) int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fill()
	return f(a)
}

func (a *OAuthServer) fill() {
	a.Registrations, a.Refreshes = a.p.Registrations(), a.p.Refreshes()
	a.ClientAuth = map[string]string{testenv.AuthNone: "none", testenv.AuthBasic: "basic", testenv.AuthPost: "post"}[a.p.LastClientAuth()]
}
