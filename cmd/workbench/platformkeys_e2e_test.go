package main

// Platform keys and platform logins end to end, over served processes and a real MCP client (the
// official Go SDK): a key set on one replica gives every organisation the connector's tools on
// another, its removal there takes them away on the first without a restart; a key set before a
// restart keeps its platform login connected at boot, and the caps usage is the same after the
// restart and after `workbench projections rebuild`. The connector is a folder one with
// auth.instance {own: true} (key connector:remote) on a real MCP server on loopback that checks the
// bearer token as a provider does.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors/connectorstest"
)

// platformConnectorDir is a CONNECTORS_DIR holding "remote", a token connector on endpoint whose
// platform login runs on the platform key connector:remote.
func platformConnectorDir(t *testing.T, endpoint string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "remote"), 0o755); err != nil {
		t.Fatal(err)
	}
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token","instance":{"own":true}}}`, endpoint)
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// platformKeyRequest sends an admin request to the platform keys API at base as the browser's user,
// from the portal's origin, and returns the status and body.
func platformKeyRequest(t *testing.T, browser *http.Client, base, origin, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Origin", origin)
	resp, err := browser.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// toolText calls tool through cs and returns its text, or an error (the call's or its isError).
func toolText(cs *sdk.ClientSession, tool string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%s: %d contents", tool, len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		return "", fmt.Errorf("%s: content %T", tool, res.Content[0])
	}
	if res.IsError {
		return tc.Text, fmt.Errorf("%s: isError: %s", tool, tc.Text)
	}
	return tc.Text, nil
}

const platformKeyPath = "/api/admin/platform-keys/connector%3Aremote"

func TestPlatformKeysTwoReplicas(t *testing.T) {
	t.Parallel()
	const key = "tok-platform-replicas-4242"
	remote := connectorstest.NewRemote(t, "tok-nobody-else-0000")
	remote.Accept(key)
	c := newCluster(t, 2, map[string]string{
		"CONNECTORS_DIR": platformConnectorDir(t, remote.URL()), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"WORKBENCH_ADMINS": "root@example.com",
	})
	root := c.user("root@example.com")
	ada := c.user("ada@example.com")
	c.start()
	a, b := c.replicas[0], c.replicas[1]
	onA, _ := c.mcp(0).connectSDK(t, ada.Key)
	defer onA.Close()
	onB, _ := c.mcp(1).connectSDK(t, ada.Key)
	defer onB.Close()
	search := map[string]any{"query": "echo"}
	echo := map[string]any{"executions": []any{ex("remote_echo", map[string]any{"text": "over B"})}}
	whoami := map[string]any{"executions": []any{ex("remote_whoami", map[string]any{"text": ""})}}

	if s, err := toolText(onB, "search_tools", search); err != nil || strings.Contains(s, "remote_echo") {
		t.Fatalf("search_tools on B before any key = %s, %v", s, err)
	}

	// The admin sets the key on A.
	if status, body := platformKeyRequest(t, c.browser(root), a.base, c.public, http.MethodPut, platformKeyPath,
		map[string]any{"fields": map[string]string{"token": key}}); status != http.StatusOK || bytes.Contains(body, []byte(key)) {
		t.Fatalf("set the key on A: %d %s", status, body)
	}

	// B offers the connector's tools to ada, and a call there runs on the new key.
	eventually(t, "remote_echo in search_tools on B", 30*time.Second, func() error {
		s, err := toolText(onB, "search_tools", search)
		if err != nil {
			return err
		}
		if !strings.Contains(s, "remote_echo") {
			return fmt.Errorf("not found: %.300s", s)
		}
		return nil
	})
	before := remote.Calls.Load()
	s, err := toolText(onB, "execute_tools", echo)
	if err != nil || !strings.Contains(s, "echo: over B") {
		t.Fatalf("remote_echo on B = %s, %v", s, err)
	}
	if remote.Calls.Load() != before+1 {
		t.Fatalf("the remote saw %d calls, want 1", remote.Calls.Load()-before)
	}
	// The remote answers with the token it was called with: the platform key, redacted by its label.
	s, err = toolText(onB, "execute_tools", whoami)
	if err != nil || strings.Contains(s, key) || !strings.Contains(s, "token is [REDACTED:platform_remote_token]") {
		t.Fatalf("remote_whoami on B = %s, %v", s, err)
	}

	// A offers them too (so their absence below is the removal's doing).
	eventually(t, "remote_echo in search_tools on A", 30*time.Second, func() error {
		s, err := toolText(onA, "search_tools", search)
		if err != nil {
			return err
		}
		if !strings.Contains(s, "remote_echo") {
			return fmt.Errorf("not found: %.300s", s)
		}
		return nil
	})

	// The admin removes the key on B; A stops offering the tools, with no restart.
	if status, body := platformKeyRequest(t, c.browser(root), b.base, c.public, http.MethodDelete, platformKeyPath, nil); status != http.StatusNoContent {
		t.Fatalf("remove the key on B: %d %s", status, body)
	}
	eventually(t, "remote_echo gone from search_tools on A", 30*time.Second, func() error {
		s, err := toolText(onA, "search_tools", search)
		if err != nil {
			return err
		}
		if strings.Contains(s, "remote_echo") {
			return fmt.Errorf("still found: %.300s", s)
		}
		return nil
	})
	before = remote.Calls.Load()
	if s, _ := toolText(onA, "execute_tools", echo); !strings.Contains(s, "Unknown tool: remote_echo") {
		t.Fatalf("remote_echo on A after the key's removal = %s", s)
	}
	if remote.Calls.Load() != before {
		t.Fatal("the remote was called after the key's removal")
	}
}

// adminBrowser is a portal user agent signed in as user that sends its cookie with every request.
func adminBrowser(t *testing.T, m *Main, user uuid.UUID) *http.Client {
	t.Helper()
	cookie, err := m.Sessions.Cookie(user)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Transport: alwaysCookie{cookie: cookie}}
}

// platformCalls is the calls of the caps usage (GET /api/admin/connector-calls) on the remote
// connector, summed over organisations and months.
func platformCalls(t *testing.T, browser *http.Client, base string) int {
	t.Helper()
	status, body := platformKeyRequest(t, browser, base, base, http.MethodGet, "/api/admin/connector-calls", nil)
	var out struct {
		Usage []struct {
			Slug  string `json:"slug"`
			Calls int    `json:"calls"`
			Cap   *int   `json:"cap"`
		} `json:"usage"`
	}
	if status != http.StatusOK || json.Unmarshal(body, &out) != nil {
		t.Fatalf("connector-calls: %d %s", status, body)
	}
	n := 0
	for _, u := range out.Usage {
		if u.Slug == "remote" {
			if u.Cap == nil || *u.Cap != 50 {
				t.Fatalf("the remote connector's cap = %v, want 50", u.Cap)
			}
			n += u.Calls
		}
	}
	return n
}

func TestPlatformKeyKeptAcrossRestart(t *testing.T) {
	t.Parallel()
	const key = "tok-platform-restart-7171"
	remote := connectorstest.NewRemote(t, key)
	db := filepath.Join(t.TempDir(), "wb.db")
	env := map[string]string{
		"CONNECTORS_DIR": platformConnectorDir(t, remote.URL()), "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"WORKBENCH_ADMINS": "root@example.com", "WORKBENCH_ORG_LIMITS": `{"monthly_connector_calls":{"remote":50}}`,
	}
	var root, ada e2eUser
	// serve boots a server on db for the subtest's length and makes one call on the platform login
	// (the remote called once), answering the caps usage's count before and after it.
	serve := func(t *testing.T, first bool) (before, after int) {
		srv := startE2E(t, db, env, slog.LevelWarn)
		if first {
			root, ada = srv.user(t, "root@example.com"), srv.user(t, "ada@example.com")
			if status, body := platformKeyRequest(t, adminBrowser(t, srv.M, root.ID), srv.Base, srv.Base, http.MethodPut, platformKeyPath,
				map[string]any{"fields": map[string]string{"token": key}}); status != http.StatusOK {
				t.Fatalf("set the key: %d %s", status, body)
			}
		}
		admin := adminBrowser(t, srv.M, root.ID)
		before = platformCalls(t, admin, srv.Base)
		cs, _ := (&mcpEnv{endpoint: srv.Base + "/mcp"}).connectSDK(t, ada.Key)
		defer cs.Close()
		// At boot (no key event since): the tool is there at once.
		if s, err := toolText(cs, "search_tools", map[string]any{"query": "echo"}); err != nil || !strings.Contains(s, "remote_echo") {
			t.Fatalf("search_tools = %s, %v", s, err)
		}
		calls := remote.Calls.Load()
		if s, err := toolText(cs, "execute_tools", map[string]any{"executions": []any{ex("remote_echo", map[string]any{"text": "kept"})}}); err != nil || !strings.Contains(s, "echo: kept") {
			t.Fatalf("remote_echo = %s, %v", s, err)
		}
		if remote.Calls.Load() != calls+1 {
			t.Fatalf("the remote saw %d calls, want 1", remote.Calls.Load()-calls)
		}
		eventually(t, "the call in the caps usage", 20*time.Second, func() error {
			if after = platformCalls(t, admin, srv.Base); after != before+1 {
				return fmt.Errorf("%d calls, want %d", after, before+1)
			}
			return nil
		})
		return before, after
	}

	var counted int
	t.Run("set the key and call", func(t *testing.T) {
		before, after := serve(t, true)
		if before != 0 || after != 1 {
			t.Fatalf("caps usage %d then %d, want 0 then 1", before, after)
		}
		counted = after
	})
	if t.Failed() {
		return
	}
	t.Run("restarted: the platform login is connected at boot", func(t *testing.T) {
		before, after := serve(t, false)
		if before != counted {
			t.Fatalf("caps usage after the restart = %d, want %d", before, counted)
		}
		counted = after
	})
	if t.Failed() {
		return
	}
	// Stopped: every read model rebuilt from the log.
	var out bytes.Buffer
	vars := map[string]string{"DATABASE_URL": db, "SERVER_PUBLIC_URL": "http://127.0.0.1:1"}
	for k, v := range env {
		vars[k] = v
	}
	if err := run(context.Background(), []string{"projections", "rebuild"}, envFunc(vars), &out, io.Discard); err != nil || !strings.Contains(out.String(), "rebuilt all projections") {
		t.Fatalf("projections rebuild: %v %q", err, out.String())
	}
	t.Run("after projections rebuild", func(t *testing.T) {
		before, _ := serve(t, false)
		if before != counted {
			t.Fatalf("caps usage after the rebuild = %d, want %d", before, counted)
		}
	})
}
