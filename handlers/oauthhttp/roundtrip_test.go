package oauthhttp_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var resourceMetadataParam = regexp.MustCompile(`resource_metadata="([^"]+)"`)

func TestRoundTripSQLite(t *testing.T) { roundTrip(t, newEnv(t, envOptions{})) }

func TestRoundTripPostgres(t *testing.T) { roundTrip(t, newEnv(t, envOptions{postgres: true})) }

// roundTrip is the flow an MCP client performs (MCP authorization, revision 2025-11-25): a 401 at /mcp
// names the protected-resource metadata, which names the authorization server, whose metadata names
// the endpoints; then dynamic registration, authorization with PKCE and the user's consent, the code
// exchange, a call to /mcp, a refresh, a revocation, and refusal afterwards.
func roundTrip(t *testing.T, e *env) {
	// Discovery from a 401.
	res := e.mcpCall("", "")
	if res.status != http.StatusUnauthorized {
		t.Fatalf("unauthenticated /mcp: %d", res.status)
	}
	m := resourceMetadataParam.FindStringSubmatch(res.header.Get("WWW-Authenticate"))
	if m == nil {
		t.Fatalf("WWW-Authenticate %q names no resource_metadata", res.header.Get("WWW-Authenticate"))
	}
	req, _ := http.NewRequest(http.MethodGet, m[1], nil)
	prm := e.do(req).json(t)
	if prm["resource"] != e.public+"/mcp" {
		t.Fatalf("protected resource metadata: %v", prm)
	}
	issuer := prm["authorization_servers"].([]any)[0].(string)
	req, _ = http.NewRequest(http.MethodGet, issuer+"/.well-known/oauth-authorization-server", nil)
	asm := e.do(req).json(t)
	if asm["issuer"] != issuer || asm["code_challenge_methods_supported"].([]any)[0] != "S256" {
		t.Fatalf("authorization server metadata: %v", asm)
	}
	path := func(key string) string { return strings.TrimPrefix(asm[key].(string), e.public) }

	// Dynamic registration.
	redirect := "http://127.0.0.1:43117/callback"
	reg := e.postJSON(path("registration_endpoint"), map[string]any{"client_name": "Round Trip", "redirect_uris": []string{redirect},
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}})
	if reg.status != http.StatusCreated {
		t.Fatalf("register: %d %s", reg.status, reg.body)
	}
	clientID := reg.json(t)["client_id"].(string)

	// Authorization with PKCE and consent.
	verifier, challenge := pkce()
	params := e.authParams(clientID, redirect, challenge)
	page := e.consentPage(params, e.cookie)
	if page.status != http.StatusOK || !strings.Contains(string(page.body), "Round Trip") || !strings.Contains(string(page.body), "127.0.0.1:43117") {
		t.Fatalf("consent page: %d %s", page.status, page.body)
	}
	q := redirectQuery(t, e.decide(params, csrfOf(t, page), "allow", e.cookie, e.public))
	code := q.Get("code")

	// Exchange, call /mcp.
	tok := tokensOf(t, e.postForm(path("token_endpoint"), url.Values{"grant_type": {"authorization_code"}, "code": {code},
		"redirect_uri": {redirect}, "client_id": {clientID}, "code_verifier": {verifier}, "resource": {e.oauth.Resource()}}))
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusOK {
		t.Fatalf("/mcp with the access token: %d %s", res.status, res.body)
	}

	// The portal lists the client.
	list := e.portal(http.MethodGet, "/api/mcp-clients").json(t)
	clients := list["clients"].([]any)
	if len(clients) != 1 || clients[0].(map[string]any)["client_id"] != clientID || clients[0].(map[string]any)["redirect_host"] != "127.0.0.1:43117" {
		t.Fatalf("mcp clients: %v", list)
	}

	// Refresh: a new pair; the new access token works.
	tok2 := tokensOf(t, e.refresh(clientID, tok.refresh))
	if tok2.refresh == tok.refresh || tok2.access == tok.access {
		t.Fatal("refresh did not rotate")
	}
	if res := e.mcpCall("Bearer "+tok2.access, ""); res.status != http.StatusOK {
		t.Fatalf("/mcp with the refreshed token: %d %s", res.status, res.body)
	}

	// Revoke (RFC 7009), then be refused.
	rev := e.postForm(path("revocation_endpoint"), url.Values{"token": {tok2.refresh}, "token_type_hint": {"refresh_token"}, "client_id": {clientID}})
	if rev.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", rev.status, rev.body)
	}
	if res := e.refresh(clientID, tok2.refresh); res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
		t.Fatalf("refresh after revocation: %d %s", res.status, res.body)
	}
	for _, at := range []string{tok.access, tok2.access} {
		if res := e.mcpCall("Bearer "+at, ""); res.status != http.StatusUnauthorized {
			t.Fatalf("/mcp after revocation: %d %s", res.status, res.body)
		}
	}
	if list := e.portal(http.MethodGet, "/api/mcp-clients").json(t); len(list["clients"].([]any)) != 0 {
		t.Fatalf("revoked client still listed: %v", list)
	}
}
