package portalhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/handlers/websession"
)

// authenticates asks /mcp's authenticator whether key is accepted, and as whom.
func (n *node) authenticates(key string) (string, bool) {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+key)
	p, err := n.auth.Authenticate(r)
	if err != nil {
		if domain.ErrorCode(err) != domain.CodeUnauthenticated {
			n.env.t.Fatalf("authenticate: %v", err)
		}
		return "", false
	}
	return p.UserID, true
}

func TestAPIKeyLifecycle(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	user := n.createUser("dee@example.com")
	b := n.signedIn(user)
	api := n.srv.URL + "/api/apikey"
	mustAuth := func(key string, want bool) {
		t.Helper()
		got, ok := n.authenticates(key)
		if ok != want || (ok && got != user.String()) {
			t.Fatalf("authenticate %s…: %q %v, want %v", key[:8], got, ok, want)
		}
	}

	if got := b.get(api); got.status != http.StatusNotFound || got.json(t)["error"] != "not_found" {
		t.Fatalf("no key yet: %d %s", got.status, got.body)
	}
	if got := b.do(http.MethodPost, api+"/rotate", "", nil); got.status != http.StatusConflict {
		t.Fatalf("rotate without a key: %d %s", got.status, got.body)
	}

	minted := b.do(http.MethodPost, api, "", nil)
	m := minted.json(t)
	key1, _ := m["key"].(string)
	if minted.status != http.StatusCreated || !strings.HasPrefix(key1, "wb_") || !strings.HasPrefix(key1, strings.TrimRight(m["prefix"].(string), "…")) {
		t.Fatalf("mint: %d %s", minted.status, minted.body)
	}
	if minted.header.Get("Cache-Control") != "no-store" {
		t.Errorf("a key answer may be cached: %v", minted.header)
	}
	mustAuth(key1, true)
	info := b.get(api).json(t)
	if info["prefix"] != m["prefix"] || info["minted_at"] == nil || info["key"] != nil {
		t.Fatalf("GET /api/apikey: %v", info)
	}
	if got := b.do(http.MethodPost, api, "", nil); got.status != http.StatusConflict || !strings.Contains(got.json(t)["message"].(string), "rotate") {
		t.Fatalf("second mint: %d %s", got.status, got.body)
	}
	if got := b.do(http.MethodPost, api+"/reveal", "", nil).json(t); got["key"] != key1 {
		t.Fatalf("reveal: %v", got)
	}

	rotated := b.do(http.MethodPost, api+"/rotate", "", nil)
	key2, _ := rotated.json(t)["key"].(string)
	if rotated.status != http.StatusOK || key2 == "" || key2 == key1 {
		t.Fatalf("rotate: %d %s", rotated.status, rotated.body)
	}
	mustAuth(key1, false) // at once: the rotation was answered only after the read model had it
	mustAuth(key2, true)
	if got := b.do(http.MethodPost, api+"/reveal", "", nil).json(t); got["key"] != key2 {
		t.Fatalf("reveal after rotate: %v", got)
	}

	if got := b.do(http.MethodDelete, api, "", nil); got.status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", got.status, got.body)
	}
	mustAuth(key2, false)
	if got := b.get(api); got.status != http.StatusNotFound {
		t.Fatalf("after revoke: %d %s", got.status, got.body)
	}
	if got := b.do(http.MethodPost, api+"/reveal", "", nil); got.status != http.StatusNotFound {
		t.Fatalf("reveal after revoke: %d %s", got.status, got.body)
	}
	if got := b.do(http.MethodDelete, api, "", nil); got.status != http.StatusConflict && got.status != http.StatusNotFound {
		t.Fatalf("second revoke: %d %s", got.status, got.body)
	}
}

// A key belongs to its owner: another signed-in user neither sees nor reveals nor rotates it.
func TestAPIKeyIsTheOwners(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	owner, other := n.createUser("own@example.com"), n.createUser("oth@example.com")
	key := n.signedIn(owner).do(http.MethodPost, n.srv.URL+"/api/apikey", "", nil).json(t)["key"].(string)
	b := n.signedIn(other)
	if got := b.do(http.MethodPost, n.srv.URL+"/api/apikey/reveal", "", nil); got.status != http.StatusNotFound || strings.Contains(string(got.body), key) {
		t.Fatalf("reveal as another user: %d %s", got.status, got.body)
	}
	if got := b.do(http.MethodPost, n.srv.URL+"/api/apikey/rotate", "", nil); got.status != http.StatusConflict {
		t.Fatalf("rotate as another user: %d %s", got.status, got.body)
	}
	if _, ok := n.authenticates(key); !ok {
		t.Fatal("the owner's key stopped working")
	}
}

func TestPortalRoutesRefuse(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	user := n.createUser("eve@example.com")
	signedIn, signedOut := n.signedIn(user), newBrowser(t)
	foreign := map[string]string{websession.CSRFHeader: "-", "Origin": "https://evil.example"}
	bare := map[string]string{websession.CSRFHeader: "-"}
	same := map[string]string{websession.CSRFHeader: "-", "Origin": n.sessions.Origin()}
	tests := []struct {
		name    string
		b       *browser
		method  string
		path    string
		headers map[string]string
		status  int
		code    string
	}{
		{"me signed out", signedOut, "GET", "/api/me", nil, 401, "unauthenticated"},
		{"key signed out", signedOut, "GET", "/api/apikey", nil, 401, "unauthenticated"},
		{"mint signed out", signedOut, "POST", "/api/apikey", nil, 401, "unauthenticated"},
		{"integrations signed out", signedOut, "GET", "/api/integrations", nil, 401, "unauthenticated"},
		{"mint from a foreign origin", signedIn, "POST", "/api/apikey", foreign, 403, "CROSS_ORIGIN"},
		{"mint with no origin and no header", signedIn, "POST", "/api/apikey", bare, 403, "CROSS_ORIGIN"},
		{"rotate from a foreign origin", signedIn, "POST", "/api/apikey/rotate", foreign, 403, "CROSS_ORIGIN"},
		{"reveal from a foreign origin", signedIn, "POST", "/api/apikey/reveal", foreign, 403, "CROSS_ORIGIN"},
		{"revoke from a foreign origin", signedIn, "DELETE", "/api/apikey", foreign, 403, "CROSS_ORIGIN"},
		{"connect from a foreign origin", signedIn, "POST", "/api/integrations/acme/connect", foreign, 403, "CROSS_ORIGIN"},
		{"logout from a foreign origin", signedIn, "POST", "/api/auth/logout", foreign, 403, "CROSS_ORIGIN"},
		{"mint from the portal's origin", signedIn, "POST", "/api/apikey", same, 201, ""},
		{"a forged session", func() *browser { return n.signedIn(uuid.New()) }(), "GET", "/api/me", nil, 401, "unauthenticated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.b.do(tt.method, n.srv.URL+tt.path, "", tt.headers)
			if got.status != tt.status {
				t.Fatalf("%d %s, want %d", got.status, got.body, tt.status)
			}
			if tt.code != "" {
				if m := got.json(t); m["error"] != tt.code || m["message"] == "" {
					t.Fatalf("body %v, want error %q with a message", m, tt.code)
				}
			}
		})
	}
	// The refused mint changed nothing: only the same-origin one minted.
	if got := signedIn.get(n.srv.URL + "/api/apikey"); got.status != http.StatusOK {
		t.Fatalf("key after the table: %d", got.status)
	}
}

// A body over the portal's cap is 413 with the JSON error, not the route's "the body must be" 400.
func TestOversizedPortalBodyIs413(t *testing.T) {
	e := newEnv(t)
	n := e.node()
	b := n.signedIn(n.createUser("olga@example.com"))
	same := map[string]string{websession.CSRFHeader: "-", "Origin": n.sessions.Origin()}
	big := `{"fields":{"api_key":"` + strings.Repeat("x", 64<<10) + `"}}`
	got := b.do("POST", n.srv.URL+"/api/integrations/acme/apikey", big, same)
	if m := got.json(t); got.status != http.StatusRequestEntityTooLarge || m["error"] != "invalid" || !strings.Contains(m["message"].(string), "larger than") {
		t.Fatalf("oversized body: %d %s", got.status, got.body)
	}
	got = b.do("POST", n.srv.URL+"/api/integrations/acme/apikey", `{"fields":`, same)
	if got.status != http.StatusBadRequest {
		t.Fatalf("a malformed body: %d %s, want 400", got.status, got.body)
	}
}
