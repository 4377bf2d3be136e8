package oauthhttp_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// at sends req to base (scheme://host:port) instead of the public URL: the Host header names base.
func (e *env) at(base, method, path string, body string, header map[string]string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, base+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return e.do(req)
}

func (e *env) mcpAt(base, token string) response {
	e.t.Helper()
	return e.at(base, http.MethodPost, "/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
}

// claimsOf is the payload of a JWT, unverified (the server verified it).
func claimsOf(t *testing.T, jwt string) (iss string, aud []string) {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", jwt)
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Iss string          `json:"iss"`
		Aud json.RawMessage `json:"aud"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if json.Unmarshal(c.Aud, &aud) != nil {
		var one string
		_ = json.Unmarshal(c.Aud, &one)
		aud = []string{one}
	}
	return c.Iss, aud
}

// TestLoopbackAliasesFollowTheClient: with SERVER_PUBLIC_URL=http://localhost:P, a client that was
// given http://127.0.0.1:P/mcp (or [::1]) finds that URL as the protected resource (RFC 9728), its
// origin as the issuer (RFC 8414), is sent to consent on the public host where the portal session is,
// gets iss (RFC 9207) and tokens for the address it used, and those tokens work on every alias of the
// port. Another port, or a foreign host, is not an alias.
func TestLoopbackAliasesFollowTheClient(t *testing.T) {
	e := newEnv(t, envOptions{publicHost: "localhost"})
	port := strings.TrimPrefix(e.public, "http://localhost:")
	v4, v6 := "http://127.0.0.1:"+port, "http://[::1]:"+port

	for _, base := range []string{e.public, v4, v6} {
		for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			m := e.at(base, http.MethodGet, path, "", nil).json(t)
			if m["resource"] != base+"/mcp" || fmt.Sprint(m["authorization_servers"]) != "["+base+"]" {
				t.Errorf("%s%s: resource %v, authorization_servers %v; want %s/mcp and [%s]", base, path, m["resource"], m["authorization_servers"], base, base)
			}
		}
		m := e.at(base, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil).json(t)
		if m["issuer"] != base || m["authorization_endpoint"] != base+"/oauth/authorize" || m["token_endpoint"] != base+"/oauth/token" || m["registration_endpoint"] != base+"/oauth/register" {
			t.Errorf("%s: authorization server metadata %v, want everything on %s", base, m, base)
		}
		challenge := e.mcpAt(base, "").header.Get("WWW-Authenticate")
		if !strings.Contains(challenge, `resource_metadata="`+base+`/.well-known/oauth-protected-resource/mcp"`) {
			t.Errorf("%s/mcp: WWW-Authenticate %q does not name the resource metadata on %s", base, challenge, base)
		}
	}
	// Another port or another host is not this server's alias: the public documents.
	for _, base := range []string{"http://127.0.0.1:1", "http://evil.example:" + port} {
		if m := e.at(base, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", nil).json(t); m["resource"] != e.public+"/mcp" {
			t.Errorf("%s: resource %v, want the public %s/mcp", base, m["resource"], e.public)
		}
	}

	// The whole flow as the client at 127.0.0.1 runs it.
	reg := e.at(v4, http.MethodPost, "/oauth/register", `{"client_name":"Alias Client","redirect_uris":["`+appRedirect+`"],"token_endpoint_auth_method":"none"}`,
		map[string]string{"Content-Type": "application/json"})
	if reg.status != http.StatusCreated {
		t.Fatalf("register at %s: %d %s", v4, reg.status, reg.body)
	}
	clientID := reg.json(t)["client_id"].(string)
	verifier, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	params.Del("resource") // the resource is added by the alias's authorization endpoint
	opened := e.at(v4, http.MethodGet, "/oauth/authorize?"+params.Encode(), "", nil)
	loc, err := url.Parse(opened.header.Get("Location"))
	if opened.status != http.StatusFound || err != nil || loc.Scheme+"://"+loc.Host+loc.Path != e.public+"/oauth/authorize" {
		t.Fatalf("authorize on %s: %d Location %q; want 302 to the public host's authorization endpoint", v4, opened.status, opened.header.Get("Location"))
	}
	moved := loc.Query()
	if moved.Get("resource") != v4+"/mcp" || moved.Get("client_id") != clientID || moved.Get("code_challenge") != challenge || moved.Get("state") != params.Get("state") {
		t.Fatalf("the request moved to the public host is %v; want the same request naming %s/mcp", moved, v4)
	}
	page := e.consentPage(moved, e.cookie)
	if page.status != http.StatusOK {
		t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	back := redirectQuery(t, e.decide(moved, csrfOf(t, page), "allow", e.cookie, e.public))
	if back.Get("iss") != v4 || back.Get("code") == "" {
		t.Fatalf("authorization response %v; want a code and iss=%s (RFC 9207: the issuer the client used)", back, v4)
	}
	res := e.at(v4, http.MethodPost, "/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {back.Get("code")}, "redirect_uri": {appRedirect},
		"client_id": {clientID}, "code_verifier": {verifier}, "resource": {v4 + "/mcp"}}.Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"})
	tok := tokensOf(t, res)
	if iss, aud := claimsOf(t, tok.access); iss != v4 || !slices.Equal(aud, []string{v4 + "/mcp"}) {
		t.Fatalf("access token iss %q aud %v; want %s and [%s/mcp]", iss, aud, v4, v4)
	}
	// One listener: a token for one alias works on every alias of the port.
	for _, base := range []string{v4, e.public, v6} {
		if r := e.mcpAt(base, tok.access); r.status != http.StatusOK {
			t.Errorf("the 127.0.0.1 token at %s/mcp: %d %s", base, r.status, r.body)
		}
	}
	refreshed := tokensOf(t, e.at(v4, http.MethodPost, "/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.refresh}, "client_id": {clientID}}.Encode(),
		map[string]string{"Content-Type": "application/x-www-form-urlencoded"}))
	if iss, aud := claimsOf(t, refreshed.access); iss != v4 || !slices.Equal(aud, []string{v4 + "/mcp"}) {
		t.Errorf("refreshed access token iss %q aud %v; want the alias's", iss, aud)
	}

	// The public host's own flow is unchanged.
	_, pub := e.connect(appRedirect)
	if iss, aud := claimsOf(t, pub.access); iss != e.public || !slices.Equal(aud, []string{e.public + "/mcp"}) {
		t.Errorf("public access token iss %q aud %v", iss, aud)
	}

	t.Run("not aliases", func(t *testing.T) {
		for _, res := range []string{"http://127.0.0.1:1/mcp", "http://evil.example:" + port + "/mcp", "https://localhost:" + port + "/mcp", v4 + "/other",
			v4 + "//mcp", "HTTP://127.0.0.1:" + port + "/mcp", "http://127.0.0.1:" + port + "@evil.example/mcp", "http://127.0.0.1:0" + port + "/mcp"} {
			p := e.authParams(clientID, appRedirect, challenge)
			p.Set("resource", res)
			if q := redirectQuery(t, e.consentPage(p, e.cookie)); q.Get("error") != "invalid_target" {
				t.Errorf("authorization for resource %s: %v, want invalid_target", res, q)
			}
			r := e.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {pub.refresh}, "client_id": {clientID}, "resource": {res}})
			if r.status != http.StatusBadRequest || oauthErrorOf(t, r) != "invalid_target" {
				t.Errorf("token request for resource %s: %d %s", res, r.status, r.body)
			}
		}
		// A token this server signed for /mcp on another loopback port, or by an issuer on one, is not for this server.
		for _, c := range []struct{ iss, aud string }{{"http://127.0.0.1:1", v4 + "/mcp"}, {v4, "http://127.0.0.1:1/mcp"}, {v4, "http://evil.example:" + port + "/mcp"}} {
			forged, err := e.oauth.SignForTest(map[string]any{"iss": c.iss, "sub": e.user.String(), "aud": []string{c.aud},
				"exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "scope": "mcp", "client_id": clientID, "gid": "g"})
			if err != nil {
				t.Fatal(err)
			}
			if r := e.mcpAt(v4, forged); r.status != http.StatusUnauthorized {
				t.Errorf("token iss %s aud %s: %d, want 401", c.iss, c.aud, r.status)
			}
		}
	})
}

// TestNonLoopbackPublicURLHasNoAliases: with a public URL that is not loopback, a request on
// 127.0.0.1 gets the public documents and the public authorization endpoint, as before.
func TestNonLoopbackPublicURLHasNoAliases(t *testing.T) {
	e := newEnv(t, envOptions{publicHost: "wb.example"})
	port := strings.TrimPrefix(e.public, "http://wb.example:")
	v4 := "http://127.0.0.1:" + port
	if m := e.at(v4, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", nil).json(t); m["resource"] != e.public+"/mcp" {
		t.Errorf("resource %v, want %s/mcp", m["resource"], e.public)
	}
	if m := e.at(v4, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil).json(t); m["issuer"] != e.public {
		t.Errorf("issuer %v, want %s", m["issuer"], e.public)
	}
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	p := e.authParams(clientID, appRedirect, challenge)
	p.Set("resource", v4+"/mcp")
	if q := redirectQuery(t, e.consentPage(p, e.cookie)); q.Get("error") != "invalid_target" {
		t.Errorf("authorization for %s/mcp: %v, want invalid_target", v4, q)
	}
	_, tok := e.connect(appRedirect)
	if iss, _ := claimsOf(t, tok.access); iss != e.public {
		t.Errorf("iss %q, want %s", iss, e.public)
	}
	if r := e.mcpAt(v4, tok.access); r.status != http.StatusOK {
		t.Errorf("/mcp with no Origin on another Host: %d, want 200 as before", r.status)
	}
}
