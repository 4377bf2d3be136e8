package connectorstest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OAuthServer is an OAuth 2.1 authorization server written for the tests: RFC 8414 metadata,
// RFC 7591 registration of public clients, the authorization endpoint with PKCE S256, and the token
// endpoint (authorization_code and refresh_token, refresh tokens rotated). It checks every request as
// the RFCs say and fails the test on a request that breaks them. The resource server beside it is an
// MCP server (the official Go SDK's) accepting the access tokens it issued, with RFC 9728 metadata.
type OAuthServer struct {
	t  testing.TB
	AS *httptest.Server
	RS *httptest.Server

	mu sync.Mutex
	// What the metadata documents say (a test changes them to lie).
	Issuer, Resource, ResourceMetadataURL, AuthServerInPRM string
	NoRegistration, Deny                                   bool
	clients                                                map[string][]string // client_id → redirect URIs
	codes                                                  map[string]grant
	access                                                 map[string]bool
	refresh                                                map[string]string // refresh token → client_id
	Registrations, Refreshes, Unauthorized                 int

	// NoResource makes it a provider that takes no RFC 8707 resource (Google): a resource parameter
	// is then an error.
	NoResource bool
	// AuthMethods is the metadata's token_endpoint_auth_methods_supported.
	AuthMethods []string
	// ClientAuth is how the last token request authenticated its client: none, basic or post.
	ClientAuth string
	secrets    map[string]string // client_id → secret, for confidential clients (AddClient)
}

type grant struct {
	client, redirect, challenge, resource string
}

func (a *OAuthServer) errorf(format string, args ...any) {
	a.t.Errorf("authorization server: "+format, args...)
}

// NewOAuthServer starts the authorization server and its resource server on loopback.
func NewOAuthServer(t testing.TB) *OAuthServer {
	a := &OAuthServer{t: t, clients: map[string][]string{}, secrets: map[string]string{}, codes: map[string]grant{}, access: map[string]bool{}, refresh: map[string]string{},
		AuthMethods: []string{"none"}}
	a.AS = httptest.NewServer(http.HandlerFunc(a.serveAS))
	t.Cleanup(a.AS.Close)
	srv := mcp.NewServer(&mcp.Implementation{Name: "oauth-remote", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(_ context.Context, _ *mcp.CallToolRequest, in EchoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	a.RS = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			a.mu.Lock()
			doc := map[string]any{"resource": a.Resource, "authorization_servers": []string{a.AuthServerInPRM}, "bearer_methods_supported": []string{"header"}}
			a.mu.Unlock()
			writeJSON(w, 200, doc)
			return
		}
		if r.URL.Path != "/mcp" {
			http.NotFound(w, r)
			return
		}
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		a.mu.Lock()
		valid := ok && a.access[tok]
		if !valid {
			a.Unauthorized++
		}
		md := a.ResourceMetadataURL
		a.mu.Unlock()
		if !valid {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q`, md))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(a.RS.Close)
	a.Issuer, a.AuthServerInPRM = a.AS.URL, a.AS.URL
	a.Resource = a.RS.URL + "/mcp"
	a.ResourceMetadataURL = a.RS.URL + "/.well-known/oauth-protected-resource/mcp"
	return a
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = io.ReadFull(randReader{}, b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (a *OAuthServer) serveAS(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		doc := map[string]any{"issuer": a.Issuer, "authorization_endpoint": a.AS.URL + "/authorize", "token_endpoint": a.AS.URL + "/token",
			"response_types_supported": []string{"code"}, "grant_types_supported": []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": a.AuthMethods}
		if !a.NoRegistration {
			doc["registration_endpoint"] = a.AS.URL + "/register"
		}
		writeJSON(w, 200, doc)
	case "/register": // RFC 7591 section 3.1
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		var md struct {
			RedirectURIs  []string `json:"redirect_uris"`
			AuthMethod    string   `json:"token_endpoint_auth_method"`
			GrantTypes    []string `json:"grant_types"`
			ResponseTypes []string `json:"response_types"`
		}
		if r.Method != http.MethodPost || mt != "application/json" || json.NewDecoder(r.Body).Decode(&md) != nil || len(md.RedirectURIs) == 0 || md.AuthMethod != "none" {
			a.errorf("registration request breaks RFC 7591: %s %s %+v", r.Method, mt, md)
			writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		for _, u := range md.RedirectURIs {
			if p, err := url.Parse(u); err != nil || !p.IsAbs() || p.Fragment != "" {
				writeJSON(w, 400, map[string]string{"error": "invalid_redirect_uri"})
				return
			}
		}
		id := "client-" + random(9)
		a.clients[id] = md.RedirectURIs
		a.Registrations++
		writeJSON(w, 201, map[string]any{"client_id": id, "client_id_issued_at": time.Now().Unix(), "redirect_uris": md.RedirectURIs,
			"token_endpoint_auth_method": "none", "grant_types": md.GrantTypes, "response_types": md.ResponseTypes})
	case "/authorize": // RFC 6749 section 4.1.1, RFC 7636 section 4.3, RFC 8707
		q := r.URL.Query()
		redirects, known := a.clients[q.Get("client_id")]
		redirect := q.Get("redirect_uri")
		if !known || !contains(redirects, redirect) {
			a.errorf("authorize: unknown client or redirect %q", redirect)
			http.Error(w, "bad client", 400)
			return
		}
		wantResource := a.RS.URL + "/mcp"
		if a.NoResource {
			wantResource = ""
		}
		if q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 || q.Get("state") == "" ||
			q.Get("prompt") != "consent" || q.Get("resource") != wantResource {
			a.errorf("authorize request breaks the profile: %v", q)
			http.Error(w, "bad request", 400)
			return
		}
		back, _ := url.Parse(redirect)
		bq := url.Values{"state": {q.Get("state")}}
		if a.Deny {
			bq.Set("error", "access_denied")
		} else {
			code := random(18)
			a.codes[code] = grant{client: q.Get("client_id"), redirect: redirect, challenge: q.Get("code_challenge"), resource: q.Get("resource")}
			bq.Set("code", code)
		}
		back.RawQuery = bq.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	case "/token": // RFC 6749 sections 4.1.3 and 6, RFC 7636 section 4.5
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
			a.errorf("token request is not a form post")
			writeJSON(w, 400, map[string]string{"error": "invalid_request"})
			return
		}
		f := r.PostForm
		client, ok := a.authenticate(r)
		if !ok {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		switch f.Get("grant_type") {
		case "authorization_code":
			g, ok := a.codes[f.Get("code")]
			delete(a.codes, f.Get("code"))
			sum := sha256.Sum256([]byte(f.Get("code_verifier")))
			if !ok || g.client != client || g.redirect != f.Get("redirect_uri") || g.resource != f.Get("resource") {
				a.errorf("token: the code's client, redirect or resource differ")
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
				a.errorf("token: the PKCE verifier does not match the challenge")
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			a.issue(w, g.client)
		case "refresh_token":
			owner, ok := a.refresh[f.Get("refresh_token")]
			if !ok || owner != client {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(a.refresh, f.Get("refresh_token"))
			a.Refreshes++
			a.issue(w, client)
		default:
			writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		}
	default:
		http.NotFound(w, r)
	}
}

// authenticate finds the client of a token request (RFC 6749 section 2.3.1): a confidential client
// by HTTP Basic (its id and secret form-encoded) or by client_id and client_secret in the body, never
// both; a public client by its client_id alone. A wrong secret, or a confidential client that does
// not authenticate, fails.
func (a *OAuthServer) authenticate(r *http.Request) (string, bool) {
	f := r.PostForm
	if u, p, ok := r.BasicAuth(); ok {
		id, err1 := url.QueryUnescape(u)
		secret, err2 := url.QueryUnescape(p)
		if err1 != nil || err2 != nil || f.Get("client_secret") != "" || a.secrets[id] == "" || a.secrets[id] != secret {
			a.errorf("token: HTTP Basic client authentication failed for %q", id)
			return "", false
		}
		a.ClientAuth = "basic"
		return id, true
	}
	id := f.Get("client_id")
	if secret, confidential := a.secrets[id]; confidential {
		if f.Get("client_secret") != secret {
			a.errorf("token: client %q did not authenticate", id)
			return "", false
		}
		a.ClientAuth = "post"
		return id, true
	}
	if f.Get("client_secret") != "" {
		a.errorf("token: a public client sent a secret")
		return "", false
	}
	a.ClientAuth = "none"
	return id, true
}

// AddClient registers a confidential client for redirect by hand (as an operator does at a provider's
// console) and returns its id and secret.
func (a *OAuthServer) AddClient(redirect string) (id, secret string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id, secret = "conf-"+random(9), "secret/"+random(12)+"+=&"
	a.clients[id], a.secrets[id] = []string{redirect}, secret
	return id, secret
}

func (a *OAuthServer) issue(w http.ResponseWriter, client string) {
	at, rt := "at-"+random(18), "rt-"+random(18)
	a.access[at], a.refresh[rt] = true, client
	writeJSON(w, 200, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 3600, "refresh_token": rt})
}

// RevokeAccess forgets every access token (the next call is a 401); RevokeAll forgets the refresh
// tokens too (the next refresh is invalid_grant).
func (a *OAuthServer) RevokeAccess() { a.mu.Lock(); a.access = map[string]bool{}; a.mu.Unlock() }
func (a *OAuthServer) RevokeAll() {
	a.mu.Lock()
	a.access, a.refresh = map[string]bool{}, map[string]string{}
	a.mu.Unlock()
}

func (a *OAuthServer) Set(f func(a *OAuthServer)) { a.mu.Lock(); f(a); a.mu.Unlock() }

func (a *OAuthServer) Count(f func(a *OAuthServer) int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return f(a)
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

type randReader struct{}

func (randReader) Read(b []byte) (int, error) { return rand.Read(b) }
