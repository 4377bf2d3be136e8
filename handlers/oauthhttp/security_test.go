package oauthhttp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

const appRedirect = "https://app.example/cb"

func TestRedirectURIVariantsAreRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	loopbackID := e.register("http://127.0.0.1:43117/callback")
	_, challenge := pkce()
	tests := []struct {
		name, client, redirect string
	}{
		{"upper-case host", clientID, "https://APP.example/cb"},
		{"upper-case path", clientID, "https://app.example/CB"},
		{"trailing slash", clientID, "https://app.example/cb/"},
		{"extra query", clientID, "https://app.example/cb?x=1"},
		{"userinfo", clientID, "https://user@app.example/cb"},
		{"look-alike host", clientID, "https://app.example.evil.test/cb"},
		{"look-alike suffix", clientID, "https://evilapp.example/cb"},
		{"explicit port", clientID, "https://app.example:443/cb"},
		{"fragment", clientID, "https://app.example/cb#x"},
		{"http downgrade", clientID, "http://app.example/cb"},
		{"loopback port change", loopbackID, "http://127.0.0.1:9999/callback"},
		{"localhost for 127.0.0.1", loopbackID, "http://localhost:43117/callback"},
		{"missing", clientID, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := e.authParams(tc.client, tc.redirect, challenge)
			if tc.redirect == "" {
				params.Del("redirect_uri")
			}
			res := e.consentPage(params, e.cookie)
			if res.status != http.StatusBadRequest || res.header.Get("Location") != "" {
				t.Fatalf("got %d Location %q, want a 400 page and no redirect", res.status, res.header.Get("Location"))
			}
			if strings.Contains(string(res.body), "csrf_token") {
				t.Fatal("a consent form was shown")
			}
		})
	}
	t.Run("exact match passes", func(t *testing.T) {
		if res := e.consentPage(e.authParams(clientID, appRedirect, challenge), e.cookie); res.status != http.StatusOK {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
}

func TestRegistrationRefusalsSayWhy(t *testing.T) {
	e := newEnv(t, envOptions{registrationLimit: 100})
	tests := []struct {
		name string
		body map[string]any
		code string
	}{
		{"no redirect", map[string]any{"client_name": "x"}, "invalid_redirect_uri"},
		{"http remote", map[string]any{"redirect_uris": []string{"http://app.example/cb"}}, "invalid_redirect_uri"},
		{"fragment", map[string]any{"redirect_uris": []string{"https://app.example/cb#f"}}, "invalid_redirect_uri"},
		{"wildcard", map[string]any{"redirect_uris": []string{"https://*.app.example/cb"}}, "invalid_redirect_uri"},
		{"custom scheme", map[string]any{"redirect_uris": []string{"myapp://cb"}}, "invalid_redirect_uri"},
		{"userinfo", map[string]any{"redirect_uris": []string{"https://u:p@app.example/cb"}}, "invalid_redirect_uri"},
		{"implicit grant", map[string]any{"redirect_uris": []string{appRedirect}, "grant_types": []string{"implicit"}}, "invalid_client_metadata"},
		{"token response", map[string]any{"redirect_uris": []string{appRedirect}, "response_types": []string{"token"}}, "invalid_client_metadata"},
		{"private_key_jwt", map[string]any{"redirect_uris": []string{appRedirect}, "token_endpoint_auth_method": "private_key_jwt"}, "invalid_client_metadata"},
		{"unknown scope", map[string]any{"redirect_uris": []string{appRedirect}, "scope": "admin"}, "invalid_client_metadata"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.postJSON("/oauth/register", tc.body)
			m := res.json(t)
			if res.status != http.StatusBadRequest || m["error"] != tc.code || len(m["error_description"].(string)) < 10 {
				t.Fatalf("got %d %s", res.status, res.body)
			}
		})
	}
	t.Run("not JSON", func(t *testing.T) {
		res := e.postForm("/oauth/register", url.Values{"redirect_uris": {appRedirect}})
		if res.status != http.StatusBadRequest || res.json(t)["error_description"] == "" {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
	t.Run("a secret method is registered as public", func(t *testing.T) {
		res := e.postJSON("/oauth/register", map[string]any{"redirect_uris": []string{appRedirect}, "token_endpoint_auth_method": "client_secret_basic"})
		if m := res.json(t); res.status != http.StatusCreated || m["token_endpoint_auth_method"] != "none" || m["client_secret"] != nil {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
}

func TestRegistrationIsRateLimited(t *testing.T) {
	e := newEnv(t, envOptions{registrationLimit: 3})
	body := map[string]any{"redirect_uris": []string{appRedirect}}
	for i := range 3 {
		if res := e.postJSON("/oauth/register", body); res.status != http.StatusCreated {
			t.Fatalf("registration %d: %d %s", i+1, res.status, res.body)
		}
	}
	res := e.postJSON("/oauth/register", body)
	if res.status != http.StatusTooManyRequests || res.json(t)["error_description"] == "" || res.header.Get("Retry-After") == "" {
		t.Fatalf("fourth registration: %d %v %s", res.status, res.header, res.body)
	}
}

func TestPKCEMissingIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	params := e.authParams(clientID, appRedirect, "")
	params.Del("code_challenge")
	params.Del("code_challenge_method")
	q := redirectQuery(t, e.consentPage(params, e.cookie))
	if q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "PKCE") {
		t.Fatalf("got %v", q)
	}
}

func TestPKCEPlainIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	verifier, _ := pkce()
	for _, method := range []string{"plain", ""} {
		t.Run("method "+method, func(t *testing.T) {
			params := e.authParams(clientID, appRedirect, verifier) // plain: challenge = verifier
			if method == "" {
				params.Del("code_challenge_method")
			} else {
				params.Set("code_challenge_method", method)
			}
			q := redirectQuery(t, e.consentPage(params, e.cookie))
			if q.Get("error") != "invalid_request" || !strings.Contains(q.Get("error_description"), "S256") {
				t.Fatalf("got %v", q)
			}
			// The consent POST is checked the same way, whatever the page said.
			page := e.consentPage(e.authParams(clientID, appRedirect, verifier), e.cookie)
			q = redirectQuery(t, e.decide(params, csrfOf(t, page), "allow", e.cookie, e.public))
			if q.Get("code") != "" || q.Get("error") != "invalid_request" {
				t.Fatalf("consent POST with %q: %v", method, q)
			}
		})
	}
}

func TestPKCEWrongVerifierIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	code := e.authorize(e.authParams(clientID, appRedirect, challenge))
	other, _ := pkce()
	res := e.exchange(clientID, appRedirect, code, other)
	if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
		t.Fatalf("got %d %s", res.status, res.body)
	}
}

func TestPKCEDowngradeIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	verifier, challenge := pkce()
	code := e.authorize(e.authParams(clientID, appRedirect, challenge))
	t.Run("no verifier for a code issued with a challenge", func(t *testing.T) {
		res := e.exchange(clientID, appRedirect, code, "")
		if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
	t.Run("the challenge itself as a plain verifier", func(t *testing.T) {
		res := e.exchange(clientID, appRedirect, code, challenge)
		if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
	t.Run("a verifier sent when no challenge was", func(t *testing.T) {
		// No code is ever issued without a challenge (TestPKCEMissingIsRefused); a verifier with a code
		// the server never issued under a challenge is refused.
		res := e.exchange(clientID, appRedirect, "ory_ac_forged.forged", verifier)
		if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
	t.Run("the right verifier still works", func(t *testing.T) {
		tokensOf(t, e.exchange(clientID, appRedirect, code, verifier))
	})
}

func TestRedirectURIMismatchAtTokenEndpoint(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	verifier, challenge := pkce()
	code := e.authorize(e.authParams(clientID, appRedirect, challenge))
	res := e.exchange(clientID, appRedirect+"/", code, verifier)
	if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
		t.Fatalf("got %d %s", res.status, res.body)
	}
}

func TestCodeReuseFailsAndRevokesWhatItIssued(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	verifier, challenge := pkce()
	code := e.authorize(e.authParams(clientID, appRedirect, challenge))
	tok := tokensOf(t, e.exchange(clientID, appRedirect, code, verifier))
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusOK {
		t.Fatalf("/mcp: %d", res.status)
	}
	res := e.exchange(clientID, appRedirect, code, verifier)
	if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
		t.Fatalf("second exchange: %d %s", res.status, res.body)
	}
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusUnauthorized {
		t.Fatalf("/mcp with the first exchange's access token: %d", res.status)
	}
	if res := e.refresh(clientID, tok.refresh); res.status != http.StatusBadRequest {
		t.Fatalf("refresh with the first exchange's refresh token: %d %s", res.status, res.body)
	}
}

func TestRefreshReuseRevokesTheFamily(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID, tok1 := e.connect(appRedirect)
	tok2 := tokensOf(t, e.refresh(clientID, tok1.refresh))
	res := e.refresh(clientID, tok1.refresh)
	if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_grant" {
		t.Fatalf("reuse: %d %s", res.status, res.body)
	}
	if res := e.refresh(clientID, tok2.refresh); res.status != http.StatusBadRequest {
		t.Fatalf("the family's live refresh token after reuse: %d %s", res.status, res.body)
	}
	if res := e.mcpCall("Bearer "+tok2.access, ""); res.status != http.StatusUnauthorized {
		t.Fatalf("/mcp after reuse: %d", res.status)
	}
}

func TestWrongAudienceIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	t.Run("authorization request for another resource", func(t *testing.T) {
		params := e.authParams(clientID, appRedirect, challenge)
		params.Set("resource", "https://other.example/mcp")
		if q := redirectQuery(t, e.consentPage(params, e.cookie)); q.Get("error") != "invalid_target" {
			t.Fatalf("got %v", q)
		}
	})
	t.Run("token request for another resource", func(t *testing.T) {
		res := e.postForm("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {clientID},
			"resource": {"https://other.example/mcp"}})
		if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_target" {
			t.Fatalf("got %d %s", res.status, res.body)
		}
	})
	t.Run("a token signed by this server for another audience", func(t *testing.T) {
		_, tok := e.connect(appRedirect)
		if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusOK {
			t.Fatalf("control: %d", res.status)
		}
		claims := map[string]any{"iss": e.public, "sub": e.user.String(), "aud": []string{"https://other.example/mcp"},
			"exp": time.Now().Add(time.Minute).Unix(), "iat": time.Now().Unix(), "scope": "mcp", "client_id": clientID, "gid": "g"}
		forged, err := e.oauth.SignForTest(claims)
		if err != nil {
			t.Fatal(err)
		}
		if res := e.mcpCall("Bearer "+forged, ""); res.status != http.StatusUnauthorized {
			t.Fatalf("other audience: %d", res.status)
		}
	})
}

func TestAccessTokenInQueryStringIsRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	_, tok := e.connect(appRedirect)
	if res := e.mcpCall("", "?access_token="+url.QueryEscape(tok.access)); res.status != http.StatusUnauthorized {
		t.Fatalf("query only: %d", res.status)
	}
	if res := e.mcpCall("Bearer "+tok.access, "?access_token="+url.QueryEscape(tok.access)); res.status != http.StatusUnauthorized {
		t.Fatalf("header and query: %d", res.status)
	}
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusOK {
		t.Fatalf("header only (control): %d", res.status)
	}
}

func TestAccessTokenExpires(t *testing.T) {
	e := newEnv(t, envOptions{})
	_, tok := e.connect(appRedirect)
	e.now = time.Now().Add(oauthTTL(e) + time.Second)
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusUnauthorized {
		t.Fatalf("after the TTL: %d", res.status)
	}
}

func oauthTTL(e *env) time.Duration { return e.oauth.AccessTokenTTL() }

func TestConsentPageCannotBeFramed(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	for name, res := range map[string]response{
		"consent page": e.consentPage(e.authParams(clientID, appRedirect, challenge), e.cookie),
		"error page":   e.consentPage(e.authParams("no-such-client", appRedirect, challenge), e.cookie),
	} {
		t.Run(name, func(t *testing.T) {
			if res.header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("X-Frame-Options %q", res.header.Get("X-Frame-Options"))
			}
			if csp := res.header.Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if res.header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", res.header.Get("Cache-Control"))
			}
		})
	}
}

func TestConsentShowsClientScopesAndRedirectHost(t *testing.T) {
	e := newEnv(t, envOptions{})
	res := e.postJSON("/oauth/register", map[string]any{"client_name": "<script>Evil</script> Client", "redirect_uris": []string{appRedirect}})
	clientID := res.json(t)["client_id"].(string)
	_, challenge := pkce()
	page := string(e.consentPage(e.authParams(clientID, appRedirect, challenge), e.cookie).body)
	for _, want := range []string{"&lt;script&gt;Evil&lt;/script&gt; Client", "<code>mcp</code>", "<strong>app.example</strong>", "ada@example.com"} {
		if !strings.Contains(page, want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>") {
		t.Error("the client name was not escaped")
	}
}

func TestConsentPostIsCSRFProtected(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	csrf := csrfOf(t, e.consentPage(params, e.cookie))
	otherSession := e.newSession("bob@example.com")
	tests := []struct {
		name   string
		csrf   string
		cookie *http.Cookie
		origin string
		status int
	}{
		{"no token", "", e.cookie, e.public, http.StatusForbidden},
		{"wrong token", "AAAA" + csrf[4:], e.cookie, e.public, http.StatusForbidden},
		{"token of another session", csrf, otherSession, e.public, http.StatusForbidden},
		{"foreign origin", csrf, e.cookie, "https://evil.example", http.StatusForbidden},
		{"null origin without the token", "", e.cookie, "null", http.StatusForbidden},
		{"null origin with another session's token", csrf, otherSession, "null", http.StatusForbidden},
		{"signed out", csrf, nil, e.public, http.StatusUnauthorized},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := e.decide(params, tc.csrf, "allow", tc.cookie, tc.origin)
			if res.status != tc.status || res.header.Get("Location") != "" {
				t.Fatalf("got %d Location %q", res.status, res.header.Get("Location"))
			}
		})
	}
	t.Run("the genuine form passes", func(t *testing.T) {
		if q := redirectQuery(t, e.decide(params, csrf, "allow", e.cookie, e.public)); q.Get("code") == "" {
			t.Fatalf("got %v", q)
		}
	})
	t.Run("the genuine form passes with Origin null", func(t *testing.T) {
		// Chromium sends Origin: null with this page's POST; the session-bound token decides.
		params := e.authParams(clientID, appRedirect, challenge)
		csrf := csrfOf(t, e.consentPage(params, e.cookie))
		if q := redirectQuery(t, e.decide(params, csrf, "allow", e.cookie, "null")); q.Get("code") == "" {
			t.Fatalf("got %v", q)
		}
	})
}

func TestConsentDenied(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	q := redirectQuery(t, e.decide(params, csrfOf(t, e.consentPage(params, e.cookie)), "deny", e.cookie, e.public))
	if q.Get("error") != "access_denied" || q.Get("code") != "" || q.Get("state") != params.Get("state") {
		t.Fatalf("got %v", q)
	}
}

func TestSignedOutConsentGoesToSignIn(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	res := e.consentPage(params, nil)
	want := "/signin?next=" + url.QueryEscape("/oauth/authorize?"+params.Encode())
	if res.status != http.StatusFound || res.header.Get("Location") != want {
		t.Fatalf("got %d %q, want %q", res.status, res.header.Get("Location"), want)
	}
}
