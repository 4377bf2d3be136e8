package oauthhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/oauthdom"
	"github.com/workbench/workbench/eventstore"
)

// TestAuthorizeWithoutState is the flow of a client that sends no state (the TypeScript MCP SDK's
// default): PKCE S256 carries the protection, the code arrives without a state parameter, with the
// issuer (RFC 9207), and redeems.
func TestAuthorizeWithoutState(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	for _, state := range []string{"", "abc"} { // none, and one shorter than fosite's default minimum
		t.Run("state="+state, func(t *testing.T) {
			verifier, challenge := pkce()
			params := e.authParams(clientID, appRedirect, challenge)
			if state == "" {
				params.Del("state")
			} else {
				params.Set("state", state)
			}
			page := e.consentPage(params, e.cookie)
			if page.status != http.StatusOK {
				t.Fatalf("consent page: %d %s", page.status, page.body)
			}
			q := redirectQuery(t, e.decide(params, csrfOf(t, page), "allow", e.cookie, e.public))
			if q.Get("code") == "" {
				t.Fatalf("no code: %v", q)
			}
			if state == "" && q.Has("state") {
				t.Fatalf("state sent back though the client sent none: %v", q)
			}
			if state != "" && q.Get("state") != state {
				t.Fatalf("state %q, want %q", q.Get("state"), state)
			}
			if q.Get("iss") != e.public {
				t.Fatalf("iss %q, want %q", q.Get("iss"), e.public)
			}
			tokensOf(t, e.exchange(clientID, appRedirect, q.Get("code"), verifier))
		})
	}
	t.Run("PKCE stays mandatory without state", func(t *testing.T) {
		params := e.authParams(clientID, appRedirect, "")
		params.Del("state")
		params.Del("code_challenge")
		params.Del("code_challenge_method")
		q := redirectQuery(t, e.consentPage(params, e.cookie))
		if q.Get("error") != "invalid_request" || q.Has("state") || q.Get("iss") != e.public {
			t.Fatalf("got %v", q)
		}
	})
}

// TestAuthorizationErrorsCarryIss: every redirect back to the client names the issuer (RFC 9207
// section 2), errors included, and the metadata says so.
func TestAuthorizationErrorsCarryIss(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	_, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	q := redirectQuery(t, e.decide(params, csrfOf(t, e.consentPage(params, e.cookie)), "deny", e.cookie, e.public))
	if q.Get("error") != "access_denied" || q.Get("iss") != e.public || q.Get("state") != params.Get("state") {
		t.Fatalf("denied: %v", q)
	}
	params.Set("code_challenge_method", "plain")
	if q := redirectQuery(t, e.consentPage(params, e.cookie)); q.Get("error") != "invalid_request" || q.Get("iss") != e.public {
		t.Fatalf("bad request: %v", q)
	}
	req, _ := http.NewRequest(http.MethodGet, e.public+"/.well-known/oauth-authorization-server", nil)
	if m := e.do(req).json(t); m["authorization_response_iss_parameter_supported"] != true {
		t.Fatalf("metadata does not advertise iss: %v", m)
	}
}

// TestWrongScopeIsForbidden: a valid token granted only offline_access is 403 insufficient_scope at
// /mcp with the needed scope in the challenge (RFC 6750 section 3.1), not 401, so the client asks for
// the scope instead of throwing its tokens away.
func TestWrongScopeIsForbidden(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID := e.register(appRedirect)
	verifier, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)
	params.Set("scope", "offline_access")
	code := e.authorize(params)
	tok := tokensOf(t, e.exchange(clientID, appRedirect, code, verifier))
	res := e.mcpCall("Bearer "+tok.access, "")
	www := res.header.Get("WWW-Authenticate")
	if res.status != http.StatusForbidden || !strings.Contains(www, `error="insufficient_scope"`) || !strings.Contains(www, `scope="mcp"`) ||
		!strings.Contains(www, `resource_metadata="`+e.oauth.ProtectedResourceMetadataURL()+`"`) {
		t.Fatalf("got %d %q %s", res.status, www, res.body)
	}
	// A revoked token without the scope is simply invalid.
	rev := e.postForm("/oauth/revoke", url.Values{"token": {tok.refresh}, "client_id": {clientID}})
	if rev.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", rev.status, rev.body)
	}
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusUnauthorized {
		t.Fatalf("revoked token without the scope: %d %s", res.status, res.body)
	}
}

// TestBidiClientNamesAreRefusedAndEscaped: a name that could disguise itself on the consent page
// (U+202E turns "Good App\u202Eexe.evil" around) is refused at registration; one recorded before the
// rule is shown with the character written out.
func TestBidiClientNamesAreRefusedAndEscaped(t *testing.T) {
	e := newEnv(t, envOptions{registrationLimit: 100})
	for _, r := range []rune{0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F, 0x061C, 0x2028, 0x07, 0x1B, 0x85} {
		name := "Good App" + string(r) + "lave.exe"
		res := e.postJSON("/oauth/register", map[string]any{"client_name": name, "redirect_uris": []string{appRedirect}})
		if res.status != http.StatusBadRequest || oauthErrorOf(t, res) != "invalid_client_metadata" {
			t.Fatalf("U+%04X: %d %s", r, res.status, res.body)
		}
	}
	if res := e.postJSON("/oauth/register", map[string]any{"client_name": "Café 🤖 Agent", "redirect_uris": []string{appRedirect}}); res.status != http.StatusCreated {
		t.Fatalf("an ordinary name with accents and emoji: %d %s", res.status, res.body)
	}

	// A name recorded before registration refused such characters.
	id := uuid.NewString()
	body, _ := json.Marshal(oauthdom.ClientRegistered{ClientID: id, ClientName: "Good App\u202Eexe.evil", RedirectURIs: []string{appRedirect},
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, Scopes: []string{"mcp"}, RegisteredAt: time.Now().UTC()})
	pos, err := e.store.Append(context.Background(), oauthdom.ClientStreamName(id), eventstore.NoStream, eventstore.EventData{
		ID: uuid.New(), Type: oauthdom.TypeClientRegistered, SchemaVersion: 1, Data: body, Metadata: eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.WaitFor(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	_, challenge := pkce()
	page := e.consentPage(e.authParams(id, appRedirect, challenge), e.cookie)
	if page.status != http.StatusOK || strings.ContainsRune(string(page.body), 0x202E) || !strings.Contains(string(page.body), "Good App&lt;U&#43;202E&gt;exe.evil") {
		t.Fatalf("consent page: %d %s", page.status, page.body)
	}
}

// TestStorageFailureIsNeverACredentialRefusal: with the database gone, a registered client is told
// 503 temporarily_unavailable with Retry-After at the token and revocation endpoints (not
// invalid_client), the consent page is a 503, and /mcp with a valid token or key is 503, not 401.
func TestStorageFailureIsNeverACredentialRefusal(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID, tok := e.connect(appRedirect)
	_, challenge := pkce()
	params := e.authParams(clientID, appRedirect, challenge)

	if err := e.db.Close(); err != nil { // every read of the read models now fails
		t.Fatal(err)
	}
	for name, res := range map[string]response{
		"refresh":  e.refresh(clientID, tok.refresh),
		"code":     e.exchange(clientID, appRedirect, "whatever", "verifier-verifier-verifier-verifier-verifier"),
		"revoke":   e.postForm("/oauth/revoke", url.Values{"token": {tok.refresh}, "client_id": {clientID}}),
		"register": e.postJSON("/oauth/register", map[string]any{"client_name": "Later", "redirect_uris": []string{appRedirect}}),
	} {
		if res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" || oauthErrorOf(t, res) != "temporarily_unavailable" {
			t.Errorf("%s: %d Retry-After %q %s", name, res.status, res.header.Get("Retry-After"), res.body)
		}
	}
	if res := e.consentPage(params, e.cookie); res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" {
		t.Errorf("consent page: %d %s", res.status, res.body)
	}
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusServiceUnavailable || res.header.Get("Retry-After") == "" ||
		res.header.Get("WWW-Authenticate") != "" {
		t.Errorf("/mcp with an access token: %d %q %s", res.status, res.header.Get("WWW-Authenticate"), res.body)
	}
	key, _, _ := identitydom.NewAPIKey() // shaped like a key, so it is looked up
	if res := e.mcpCall("Bearer "+key, ""); res.status != http.StatusServiceUnavailable {
		t.Errorf("/mcp with an API key: %d %s", res.status, res.body)
	}
}

// TestRecordedRotationIsNotReportedAsAFailure: when the read model cannot be waited for after the
// rotation was recorded (the database stopped in between), the client still gets its new tokens: a
// 503 would have it retry with the spent refresh token, which reads as theft and revokes the grant.
func TestRecordedRotationIsNotReportedAsAFailure(t *testing.T) {
	var fail atomic.Bool
	e := newEnv(t, envOptions{failWait: &fail})
	clientID, tok := e.connect(appRedirect)
	fail.Store(true)
	tok2 := tokensOf(t, e.refresh(clientID, tok.refresh))
	fail.Store(false)
	// Once the read model has caught up, the new refresh token is the live one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		res := e.refresh(clientID, tok2.refresh)
		if res.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the recorded rotation never took effect: %d %s", res.status, res.body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
