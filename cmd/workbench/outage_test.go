package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/internal/testenv"
)

// TestOAuthAndMCPDuringDatabaseOutage serves Main on a private PostgreSQL cluster, stops the cluster
// and checks that nothing tells a client its good credential is bad: /mcp with a valid API key or
// access token, the token and revocation endpoints with a registered client, a portal API route and
// /readyz all answer 503 with Retry-After. Then it starts the cluster again and checks that the same
// requests succeed, without restarting the server.
func TestOAuthAndMCPDuringDatabaseOutage(t *testing.T) {
	t.Parallel()
	cluster := testenv.NewCluster(t)
	s := startE2E(t, cluster.URL(), nil, slog.LevelInfo)
	ada := s.user(t, "ada@example.com")
	c := &outageClient{t: t, base: s.Base, http: &http.Client{Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	cookie, err := s.M.Sessions.Cookie(ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	clientID, access, refresh := c.connectOAuthClient(cookie)

	// Before: every request succeeds.
	c.expect("mcp with API key", c.mcp(ada.Key), http.StatusOK)
	c.expect("mcp with access token", c.mcp(access), http.StatusOK)
	c.expect("portal API", c.portal(cookie, "/api/mcp-clients"), http.StatusOK)

	cluster.Stop()
	for _, tc := range []struct {
		name string
		res  outageResponse
	}{
		{"mcp with API key", c.mcp(ada.Key)},
		{"mcp with access token", c.mcp(access)},
		{"token (refresh)", c.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})},
		{"revoke", c.form("/oauth/revoke", url.Values{"token": {refresh}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}})},
		{"register", c.json("/oauth/register", map[string]any{"client_name": "Later", "redirect_uris": []string{"http://127.0.0.1:43118/cb"}})},
		{"portal API", c.portal(cookie, "/api/mcp-clients")},
		{"readyz", c.get("/readyz")},
	} {
		if tc.name == "mcp with API key" && tc.res.status == http.StatusOK {
			// The key's owner was looked up a moment ago and is cached (identity.KeyCache, for at
			// most a minute), and initialize needs nothing else of the database: served.
			continue
		}
		if tc.res.status != http.StatusServiceUnavailable || tc.res.header.Get("Retry-After") == "" {
			t.Errorf("%s during the outage: %d Retry-After %q %s", tc.name, tc.res.status, tc.res.header.Get("Retry-After"), tc.res.body)
		}
		if strings.HasPrefix(tc.name, "token") || tc.name == "revoke" || tc.name == "register" {
			var body struct{ Error string }
			if json.Unmarshal(tc.res.body, &body) != nil || body.Error != "temporarily_unavailable" {
				t.Errorf("%s during the outage: body %s", tc.name, tc.res.body)
			}
		}
		if www := tc.res.header.Get("WWW-Authenticate"); www != "" {
			t.Errorf("%s during the outage challenges the credential: %q", tc.name, www)
		}
	}

	// After: the same requests succeed, without a restart. While the server's pooled connections are
	// replaced, a request may still meet a dead one; it is then answered 503 with Retry-After, never
	// anything else, and the client's retry succeeds.
	cluster.Start()
	c.eventually("readyz after the outage", func() outageResponse { return c.get("/readyz") })
	c.eventually("mcp with API key after the outage", func() outageResponse { return c.mcp(ada.Key) })
	c.eventually("mcp with access token after the outage", func() outageResponse { return c.mcp(access) })
	c.eventually("portal API after the outage", func() outageResponse { return c.portal(cookie, "/api/mcp-clients") })
	res := c.eventually("token (refresh) after the outage", func() outageResponse {
		return c.form("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}, "client_id": {clientID}})
	})
	var tok struct {
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(res.body, &tok); err != nil || tok.RefreshToken == "" {
		t.Fatalf("refresh after the outage: %s", res.body)
	}
	c.eventually("revoke after the outage", func() outageResponse {
		return c.form("/oauth/revoke", url.Values{"token": {tok.RefreshToken}, "client_id": {clientID}})
	})
}

type outageClient struct {
	t    *testing.T
	base string
	http *http.Client
}

type outageResponse struct {
	status int
	header http.Header
	body   []byte
}

func (c *outageClient) do(req *http.Request) outageResponse {
	c.t.Helper()
	res, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return outageResponse{status: res.StatusCode, header: res.Header, body: b}
}

func (c *outageClient) expect(what string, res outageResponse, status int) {
	c.t.Helper()
	if res.status != status {
		c.t.Fatalf("%s: %d, want %d: %s", what, res.status, status, res.body)
	}
}

// eventually repeats send until it is answered 200, within a minute; every other answer must be 503
// with Retry-After.
func (c *outageClient) eventually(what string, send func() outageResponse) outageResponse {
	c.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for attempt := 1; ; attempt++ {
		res := send()
		switch {
		case res.status == http.StatusOK:
			if attempt > 1 {
				c.t.Logf("%s: 200 at attempt %d", what, attempt)
			}
			return res
		case res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "":
			c.t.Fatalf("%s: %d Retry-After %q: %s", what, res.status, res.header.Get("Retry-After"), res.body)
		case time.Now().After(deadline):
			c.t.Fatalf("%s: still %d a minute after the database came back: %s", what, res.status, res.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (c *outageClient) get(path string) outageResponse {
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	return c.do(req)
}

func (c *outageClient) form(path string, form url.Values) outageResponse {
	req, _ := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

func (c *outageClient) json(path string, v any) outageResponse {
	b, _ := json.Marshal(v)
	req, _ := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	return c.do(req)
}

func (c *outageClient) portal(cookie *http.Cookie, path string) outageResponse {
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	req.AddCookie(cookie)
	req.Header.Set(websession.CSRFHeader, "1")
	return c.do(req)
}

// mcp sends initialize to /mcp with a Bearer token.
func (c *outageClient) mcp(token string) outageResponse {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"outage","version":"1"}}}`
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, c.base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	return c.do(req)
}

var outageCSRF = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// connectOAuthClient registers a client, consents as the cookie's user, and redeems the code: the
// client id and its access and refresh tokens.
func (c *outageClient) connectOAuthClient(cookie *http.Cookie) (clientID, access, refresh string) {
	c.t.Helper()
	const redirect = "http://127.0.0.1:43117/callback"
	reg, _ := json.Marshal(map[string]any{"client_name": "Outage Client", "redirect_uris": []string{redirect}})
	req, _ := http.NewRequest(http.MethodPost, c.base+"/oauth/register", strings.NewReader(string(reg)))
	req.Header.Set("Content-Type", "application/json")
	res := c.do(req)
	c.expect("register", res, http.StatusCreated)
	var client struct {
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(res.body, &client); err != nil {
		c.t.Fatal(err)
	}
	b := make([]byte, 32)
	rand.Read(b)
	verifier := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	params := url.Values{"response_type": {"code"}, "client_id": {client.ClientID}, "redirect_uri": {redirect},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"}, "scope": {"mcp"}}
	req, _ = http.NewRequest(http.MethodGet, c.base+"/oauth/authorize?"+params.Encode(), nil)
	req.AddCookie(cookie)
	page := c.do(req)
	m := outageCSRF.FindSubmatch(page.body)
	if page.status != http.StatusOK || m == nil {
		c.t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	form := url.Values{"csrf_token": {string(m[1])}, "decision": {"allow"}}
	for k, v := range params {
		form[k] = v
	}
	req, _ = http.NewRequest(http.MethodPost, c.base+"/oauth/authorize", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", c.base)
	req.AddCookie(cookie)
	res = c.do(req)
	loc, err := url.Parse(res.header.Get("Location"))
	if res.status != http.StatusSeeOther || err != nil || loc.Query().Get("code") == "" {
		c.t.Fatalf("consent: %d %q", res.status, res.header.Get("Location"))
	}
	res = c.form("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {redirect}, "client_id": {client.ClientID}, "code_verifier": {verifier}})
	c.expect("code exchange", res, http.StatusOK)
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if err := json.Unmarshal(res.body, &tok); err != nil || tok.AccessToken == "" || tok.RefreshToken == "" {
		c.t.Fatalf("code exchange: %s", res.body)
	}
	return client.ClientID, tok.AccessToken, tok.RefreshToken
}
