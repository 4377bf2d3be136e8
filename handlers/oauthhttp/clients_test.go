package oauthhttp_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestMCPClientRevocationFromThePortal(t *testing.T) {
	e := newEnv(t, envOptions{})
	clientID, tok := e.connect(appRedirect)
	otherID, otherTok := e.connect("http://127.0.0.1:5000/cb")
	// An outstanding code of the client (consented, never exchanged).
	verifier, challenge := pkce()
	pending := e.authorize(e.authParams(clientID, appRedirect, challenge))

	list := e.portal(http.MethodGet, "/api/mcp-clients").json(t)
	if n := len(list["clients"].([]any)); n != 2 || list["access_token_ttl_seconds"].(float64) <= 0 {
		t.Fatalf("list: %v", list)
	}

	res := e.portal(http.MethodDelete, "/api/mcp-clients/"+clientID)
	if res.status != http.StatusNoContent || !strings.Contains(res.header.Get("Workbench-Notice"), "access tokens already issued") {
		t.Fatalf("revoke: %d %v %s", res.status, res.header, res.body)
	}
	if res := e.refresh(clientID, tok.refresh); res.status != http.StatusBadRequest {
		t.Fatalf("refresh after portal revocation: %d %s", res.status, res.body)
	}
	if res := e.exchange(clientID, appRedirect, pending, verifier); res.status != http.StatusBadRequest {
		t.Fatalf("outstanding code after portal revocation: %d %s", res.status, res.body)
	}
	// Access tokens already issued lapse at their TTL (spec "What the portal is for").
	if res := e.mcpCall("Bearer "+tok.access, ""); res.status != http.StatusOK {
		t.Fatalf("access token before its TTL: %d", res.status)
	}
	list = e.portal(http.MethodGet, "/api/mcp-clients").json(t)
	clients := list["clients"].([]any)
	if len(clients) != 1 || clients[0].(map[string]any)["client_id"] != otherID {
		t.Fatalf("list after revocation: %v", list)
	}
	// The other client is untouched.
	otherTok = tokensOf(t, e.refresh(otherID, otherTok.refresh))

	t.Run("unknown client", func(t *testing.T) {
		if res := e.portal(http.MethodDelete, "/api/mcp-clients/"+clientID); res.status != http.StatusNotFound {
			t.Fatalf("second revocation: %d %s", res.status, res.body)
		}
	})
	t.Run("another user cannot see or revoke", func(t *testing.T) {
		bob := e.newSession("bob@example.com")
		req, _ := http.NewRequest(http.MethodGet, e.public+"/api/mcp-clients", nil)
		req.AddCookie(bob)
		if m := e.do(req).json(t); len(m["clients"].([]any)) != 0 {
			t.Fatalf("bob sees %v", m)
		}
		req, _ = http.NewRequest(http.MethodDelete, e.public+"/api/mcp-clients/"+otherID, nil)
		req.AddCookie(bob)
		req.Header.Set("X-Workbench-CSRF", "1")
		if res := e.do(req); res.status != http.StatusNotFound {
			t.Fatalf("bob revokes: %d", res.status)
		}
		otherTok = tokensOf(t, e.refresh(otherID, otherTok.refresh))
	})
	t.Run("signed out and cross-site", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodGet, e.public+"/api/mcp-clients", nil)
		if res := e.do(req); res.status != http.StatusUnauthorized {
			t.Fatalf("signed out: %d", res.status)
		}
		req, _ = http.NewRequest(http.MethodDelete, e.public+"/api/mcp-clients/"+otherID, nil)
		req.AddCookie(e.cookie)
		req.Header.Set("Origin", "https://evil.example")
		if res := e.do(req); res.status != http.StatusForbidden {
			t.Fatalf("foreign origin: %d", res.status)
		}
	})
}
