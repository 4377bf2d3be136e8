package connectorstest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v3"
	josejwt "github.com/go-jose/go-jose/v3/jwt"
)

// GitHub is GitHub as a GitHub App sees it, written for the tests: on Web the installation page
// (which installs the app and sends the browser to the app's callback with installation_id,
// setup_action, state and code, as an app that requests user authorization during installation) and
// the user authorization's token exchange; on API the app's installation, installation access tokens
// and the user's installations. Every request is checked as GitHub documents it: the REST API's
// Accept and X-GitHub-Api-Version headers, the app's JWT (RS256 signed by the app's key, iss the app
// id, iat not in the future, exp ahead but at most ten minutes), the client's id and secret. A
// request that breaks them fails the test. The installation access tokens it issues are accepted by
// Remote, so a connector's endpoint can be the test's MCP server.
type GitHub struct {
	t   testing.TB
	Web *httptest.Server
	API *httptest.Server
	// The app: its id, slug, OAuth client and key (PEM as GitHub hands it out, PKCS #1).
	AppID, Slug, ClientID, ClientSecret, PEM string
	key                                      *rsa.PrivateKey
	// Now is GitHub's clock (the node's, so the JWT's times are checked against the same time).
	Now func() time.Time
	// Remote accepts the installation tokens issued.
	Remote *Remote

	mu sync.Mutex
	// Callback is the app's callback URL, where the installation page sends the browser.
	Callback string
	// Installations are the app's installations: id → account login.
	Installations map[int64]string
	// Forge, when set, is the installation id the installation page sends back instead of the one
	// it made (an installation id the browser cannot prove); NoCode sends no code.
	Forge  int64
	NoCode bool
	// Request makes the installation page answer as for a user who may only request an
	// installation: setup_action=request, no installation.
	Request bool
	// TokensIssued counts installation access tokens; JWTs counts requests authenticated as the app.
	TokensIssued, JWTs int
	// Created are the titles of the issues created.
	Created []string
	next    int64
	codes   map[string]int64   // code → the installation its user made
	users   map[string][]int64 // user access token → installations it reaches
	tokens  map[string]int64   // installation access token → installation
}

// NewGitHub starts GitHub on loopback with an app whose key it generates.
func NewGitHub(t testing.TB, now func() time.Time, remote *Remote) *GitHub {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &GitHub{t: t, AppID: "1234567", Slug: "workbench-test", ClientID: "Iv23liTestClient", ClientSecret: "gh-secret-" + random(12), key: key,
		PEM: string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})),
		Now: now, Remote: remote, Installations: map[int64]string{}, next: 40000000, codes: map[string]int64{}, users: map[string][]int64{}, tokens: map[string]int64{}}
	g.Web = httptest.NewServer(http.HandlerFunc(g.serveWeb))
	t.Cleanup(g.Web.Close)
	g.API = httptest.NewServer(http.HandlerFunc(g.serveAPI))
	t.Cleanup(g.API.Close)
	return g
}

// Key is the platform key github_app of this app.
func (g *GitHub) Key() map[string]string {
	return map[string]string{"app_id": g.AppID, "app_slug": g.Slug, "client_id": g.ClientID, "client_secret": g.ClientSecret, "private_key": g.PEM}
}

// Set changes the fake under its lock.
func (g *GitHub) Set(f func(g *GitHub)) { g.mu.Lock(); f(g); g.mu.Unlock() }

// Count reads the fake under its lock.
func (g *GitHub) Count(f func(g *GitHub) int) int { g.mu.Lock(); defer g.mu.Unlock(); return f(g) }

// Uninstall removes an installation: its tokens stop working and GitHub no longer knows it.
func (g *GitHub) Uninstall(id int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.Installations, id)
	for tok, in := range g.tokens {
		if in == id {
			g.Remote.Revoke(tok)
			delete(g.tokens, tok)
		}
	}
}

// RevokeTokens makes every installation token issued so far answer 401.
func (g *GitHub) RevokeTokens() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for tok := range g.tokens {
		g.Remote.Revoke(tok)
		delete(g.tokens, tok)
	}
}

func (g *GitHub) errorf(format string, args ...any) { g.t.Errorf("github: "+format, args...) }

func (g *GitHub) serveWeb(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/apps/"+g.Slug+"/installations/new":
		// The operator picks an account and installs; GitHub sends the browser to the callback.
		if g.Request {
			http.Redirect(w, r, g.Callback+"?"+url.Values{"setup_action": {"request"}, "state": {r.URL.Query().Get("state")}}.Encode(), http.StatusFound)
			return
		}
		g.next++
		id := g.next
		g.Installations[id] = fmt.Sprintf("octo-org-%d", id)
		code := random(15)
		g.codes[code] = id
		q := url.Values{"installation_id": {strconv.FormatInt(id, 10)}, "setup_action": {"install"}}
		if g.Forge != 0 {
			q.Set("installation_id", strconv.FormatInt(g.Forge, 10))
		}
		if !g.NoCode {
			q.Set("code", code)
		}
		if st := r.URL.Query().Get("state"); st != "" {
			q.Set("state", st)
		}
		http.Redirect(w, r, g.Callback+"?"+q.Encode(), http.StatusFound)
	case r.URL.Path == "/login/oauth/access_token":
		// GitHub, "Generating a user access token for a GitHub App": POST client_id, client_secret
		// and code; Accept: application/json gets JSON.
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || mt != "application/x-www-form-urlencoded" || r.ParseForm() != nil || r.Header.Get("Accept") != "application/json" {
			g.errorf("access_token: %s %s Accept %q", r.Method, mt, r.Header.Get("Accept"))
			http.Error(w, "bad request", 400)
			return
		}
		f := r.PostForm
		if f.Get("client_id") != g.ClientID || f.Get("client_secret") != g.ClientSecret {
			g.errorf("access_token: wrong client id or secret")
			writeJSON(w, 200, map[string]string{"error": "incorrect_client_credentials"})
			return
		}
		id, ok := g.codes[f.Get("code")]
		delete(g.codes, f.Get("code"))
		if !ok {
			writeJSON(w, 200, map[string]string{"error": "bad_verification_code"})
			return
		}
		tok := "ghu_" + random(18)
		g.users[tok] = []int64{id}
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "bearer", "scope": "", "expires_in": 28800, "refresh_token": "ghr_" + random(18)})
	default:
		http.NotFound(w, r)
	}
}

// checkJWT checks the app's JWT (GitHub, "Generating a JSON Web Token (JWT) for a GitHub App").
func (g *GitHub) checkJWT(r *http.Request) bool {
	raw, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		g.errorf("%s %s: no bearer JWT", r.Method, r.URL.Path)
		return false
	}
	tok, err := josejwt.ParseSigned(raw)
	if err != nil || len(tok.Headers) != 1 || tok.Headers[0].Algorithm != string(jose.RS256) {
		g.errorf("%s %s: not an RS256 JWT: %v", r.Method, r.URL.Path, err)
		return false
	}
	var c josejwt.Claims
	if err := tok.Claims(&g.key.PublicKey, &c); err != nil {
		g.errorf("%s %s: the JWT's signature: %v", r.Method, r.URL.Path, err)
		return false
	}
	now := g.Now()
	if c.Issuer != g.AppID || c.IssuedAt == nil || c.Expiry == nil {
		g.errorf("JWT claims: iss %q, iat %v, exp %v", c.Issuer, c.IssuedAt, c.Expiry)
		return false
	}
	iat, exp := c.IssuedAt.Time(), c.Expiry.Time()
	if iat.After(now) || !exp.After(now) || exp.Sub(now) > 10*time.Minute || exp.Sub(iat) > 10*time.Minute {
		g.errorf("JWT times break GitHub's rule: iat %s, exp %s, now %s", iat, exp, now)
		return false
	}
	g.JWTs++
	return true
}

func (g *GitHub) serveAPI(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") != "2022-11-28" {
		g.errorf("%s %s: Accept %q, X-GitHub-Api-Version %q", r.Method, r.URL.Path, r.Header.Get("Accept"), r.Header.Get("X-GitHub-Api-Version"))
		writeJSON(w, 400, map[string]string{"message": "bad headers"})
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) > 0 && (parts[0] == "installation" || parts[0] == "repos") {
		g.serveInstallationAPI(w, r, parts)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/user/installations":
		reach, ok := g.users[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		if !ok {
			writeJSON(w, 401, map[string]string{"message": "Bad credentials"})
			return
		}
		if r.URL.Query().Get("per_page") == "" {
			g.errorf("/user/installations without per_page")
		}
		var out []map[string]any
		if r.URL.Query().Get("page") == "1" {
			for _, id := range reach {
				out = append(out, map[string]any{"id": id, "account": map[string]any{"login": g.Installations[id]}})
			}
		}
		writeJSON(w, 200, map[string]any{"total_count": len(reach), "installations": out})
	case len(parts) == 3 && parts[0] == "app" && parts[1] == "installations" && r.Method == http.MethodGet:
		if !g.checkJWT(r) {
			writeJSON(w, 401, map[string]string{"message": "A JSON web token could not be decoded"})
			return
		}
		id, _ := strconv.ParseInt(parts[2], 10, 64)
		acct, ok := g.Installations[id]
		if !ok {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		writeJSON(w, 200, map[string]any{"id": id, "app_id": g.AppID, "app_slug": g.Slug, "account": map[string]any{"login": acct, "type": "Organization"}})
	case len(parts) == 4 && parts[0] == "app" && parts[1] == "installations" && parts[3] == "access_tokens" && r.Method == http.MethodPost:
		if !g.checkJWT(r) {
			writeJSON(w, 401, map[string]string{"message": "A JSON web token could not be decoded"})
			return
		}
		id, _ := strconv.ParseInt(parts[2], 10, 64)
		if _, ok := g.Installations[id]; !ok {
			writeJSON(w, 404, map[string]string{"message": "Not Found"})
			return
		}
		tok := "ghs_" + random(27)
		g.tokens[tok] = id
		g.Remote.Accept(tok)
		g.TokensIssued++
		writeJSON(w, 201, map[string]any{"token": tok, "expires_at": g.Now().Add(time.Hour).UTC().Format(time.RFC3339), "permissions": map[string]string{"issues": "write"},
			"repository_selection": "all"})
	default:
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	}
}

// serveInstallationAPI answers what a connector's adapter calls with an installation access token:
// GET /installation/repositories, GET and POST /repos/{owner}/{repo}/issues.
func (g *GitHub) serveInstallationAPI(w http.ResponseWriter, r *http.Request, parts []string) {
	id, ok := g.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	if !ok {
		writeJSON(w, 401, map[string]string{"message": "Bad credentials"})
		return
	}
	acct := g.Installations[id]
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/installation/repositories":
		writeJSON(w, 200, map[string]any{"total_count": 1, "repositories": []map[string]any{{"full_name": acct + "/demo", "private": true, "description": "The demo.", "default_branch": "main"}}})
	case len(parts) == 4 && parts[3] == "issues" && parts[1] == acct && r.Method == http.MethodGet:
		writeJSON(w, 200, []map[string]any{{"number": 1, "title": "First", "state": "open", "user": map[string]string{"login": "octocat"}, "labels": []any{},
			"html_url": "https://github.com/" + parts[1] + "/" + parts[2] + "/issues/1"}})
	case len(parts) == 4 && parts[3] == "issues" && parts[1] == acct && r.Method == http.MethodPost:
		var in struct {
			Title string `json:"title"`
			Body  string `json:"body"`
		}
		mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if mt != "application/json" || json.NewDecoder(r.Body).Decode(&in) != nil || in.Title == "" {
			g.errorf("create issue: %s, %+v", mt, in)
			writeJSON(w, 422, map[string]string{"message": "Validation Failed"})
			return
		}
		g.Created = append(g.Created, in.Title)
		writeJSON(w, 201, map[string]any{"number": 1 + len(g.Created), "html_url": fmt.Sprintf("https://github.com/%s/%s/issues/%d", parts[1], parts[2], 1+len(g.Created))})
	default:
		writeJSON(w, 404, map[string]string{"message": "Not Found"})
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// random is n random bytes, base64url.
func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
