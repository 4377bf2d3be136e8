package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/websession"
)

// TestMCPWithPortalSession: the third credential at /mcp is the portal session, accepted only from the
// portal's own origin.
func TestMCPWithPortalSession(t *testing.T) {
	t.Parallel()
	base, m := serveInProcess(t, map[string]string{"DATABASE_URL": filepath.Join(t.TempDir(), "wb.db")})
	waitReady(t, base)
	// serveInProcess's public URL is the default http://localhost:8080; the session manager is built
	// the way Serve builds it.
	sessions, err := websession.New(m.deriveKey("portal-session"), m.Config.ServerPublicURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	u, _, pos, err := m.Accounts.EnsureUser(context.Background(), "ada@example.com", "", eventstore.Metadata{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Runner.WaitFor(context.Background(), pos); err != nil {
		t.Fatal(err)
	}
	cookie, err := sessions.Cookie(u.ID)
	if err != nil {
		t.Fatal(err)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`
	post := func(headers map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.AddCookie(cookie)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"portal origin", map[string]string{"Origin": sessions.Origin()}, 200},
		{"portal CSRF header without Origin", map[string]string{websession.CSRFHeader: "1"}, 200},
		{"cookie alone", nil, 401},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, 403},
		{"bad bearer beside the cookie", map[string]string{"Origin": sessions.Origin(), "Authorization": "Bearer nope"}, 401},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if code, body := post(tt.headers); code != tt.want {
				t.Fatalf("status %d, want %d: %s", code, tt.want, body)
			}
		})
	}
}
