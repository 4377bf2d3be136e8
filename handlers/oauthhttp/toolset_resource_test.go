package oauthhttp_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
)

// A toolset's endpoint is a protected resource of its own: its metadata names it, a client may ask for a
// token for it alone (RFC 8707), and the verified token says which toolset it is confined to; a token
// for /mcp is confined to none. A resource that is neither is refused.
func TestToolsetEndpointIsAResource(t *testing.T) {
	e := newEnv(t, envOptions{})
	get := func(path string) response {
		req, _ := http.NewRequest(http.MethodGet, e.public+path, nil)
		return e.do(req)
	}
	md := get("/.well-known/oauth-protected-resource/mcp/ts/ops")
	if md.status != http.StatusOK {
		t.Fatalf("toolset metadata: %d %s", md.status, md.body)
	}
	if m := md.json(t); m["resource"] != e.public+"/mcp/ts/ops" || m["authorization_servers"].([]any)[0] != e.public {
		t.Fatalf("toolset metadata %v", m)
	}
	if res := get("/.well-known/oauth-protected-resource/mcp/ts/Not_A_Name"); res.status != http.StatusNotFound {
		t.Fatalf("metadata of a malformed toolset name: %d %s", res.status, res.body)
	}

	clientID := e.register(appRedirect)
	token := func(resource string) string {
		t.Helper()
		verifier, challenge := pkce()
		params := e.authParams(clientID, appRedirect, challenge)
		params.Set("resource", resource)
		code := e.authorize(params)
		res := e.postForm("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {appRedirect},
			"client_id": {clientID}, "code_verifier": {verifier}, "resource": {resource}})
		return tokensOf(t, res).access
	}
	claims, err := e.oauth.VerifyAccessToken(context.Background(), token(e.public+"/mcp/ts/ops"))
	if err != nil || claims.Toolset != "ops" {
		t.Fatalf("a token for /mcp/ts/ops: %+v %v, want confined to ops", claims, err)
	}
	if claims, err := e.oauth.VerifyAccessToken(context.Background(), token(e.public+"/mcp")); err != nil || claims.Toolset != "" {
		t.Fatalf("a token for /mcp: %+v %v, want confined to none", claims, err)
	}
	for _, bad := range []string{e.public + "/mcp/ts/../admin", e.public + "/mcp/ts/", e.public + "/api", "https://elsewhere.example/mcp/ts/ops"} {
		_, challenge := pkce()
		params := e.authParams(clientID, appRedirect, challenge)
		params.Set("resource", bad)
		if q := redirectQuery(t, e.consentPage(params, e.cookie)); q.Get("error") != "invalid_target" {
			t.Fatalf("resource %s: %v, want invalid_target", bad, q)
		}
	}
}
