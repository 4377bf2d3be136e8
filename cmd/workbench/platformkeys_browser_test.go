package main

// Admin, Platform keys and Caps usage in real headless Chromium: an instance admin sees the Admin
// link, sets the brave-search integration's key (never shown back), the shipped brave connector
// gets its platform login at once and a call on it shows in the caps usage against
// WORKBENCH_ORG_LIMITS; the key is removed. Someone who is not an instance admin sees no Admin link,
// and the page tells them it is the admins'.

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain/platformcall"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/brave-search"
	"github.com/workbench/workbench/plugins/connector"
)

func TestPlatformKeysPagesInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	const key = "BSA-browser-key-31337"
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/res/v1/web/search" || r.Header.Get("X-Subscription-Token") != key {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"web": map[string]any{"results": []map[string]string{{"title": "Go", "url": "https://go.dev/"}}}})
	}))
	defer fake.Close()
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"WORKBENCH_DEV_ALLOW_LOOPBACK": "true", "WORKBENCH_ORG_LIMITS": `{"monthly_connector_calls":{"brave":5}}`,
	}, slog.LevelInfo, func(m *Main) {
		m.ConnectorAdapters = map[string]connector.Adapter{"brave": brave.New(fake.URL)}
	})
	tb := openTab(t, browser, srv.Base)
	tb.open(startupSignInLink(t, srv)[len(srv.Base):])
	tb.waitURL(`^/$`)

	t.Run("set a key", func(t *testing.T) {
		tb.t = t
		tb.click(`nav a`, `Platform keys`)
		tb.waitURL(`^/admin/platform-keys$`)
		row := `tr[data-key="integration:brave-search"]`
		tb.el(row+` [data-testid=key-state]`, `Not set`)
		tb.el(row, `Used by brave`)
		tb.fill(row+` input[data-field=api_key]`, key)
		tb.click(row+` [data-testid=save-key]`, "")
		tb.el(`.notice-success`, `integration:brave-search is set`)
		tb.el(row+` [data-testid=key-state]`, `^Set$`)
		tb.el(row, `api_key`)
		if html, _ := tb.el(`body`, "").HTML(); strings.Contains(html, key) {
			t.Fatal("the page shows the key's value")
		}
		tb.shot("admin-platform-keys")
	})

	t.Run("a call on the platform login shows in the caps usage", func(t *testing.T) {
		tb.t = t
		user := tb.userOf(t)
		ctx := context.Background()
		caller := executions.Caller{UserID: user, Via: "session"}
		prefix := ""
		srvRow, err := srv.M.Connectors.Reader().Server(ctx, "mcp_brave")
		if err != nil {
			t.Fatal(err)
		}
		prefix = srvRow.ToolPrefix
		st, ok, err := srv.M.Connectors.FindTool(ctx, caller, prefix+"_web_search", "")
		if err != nil || !ok {
			t.Fatalf("web_search on the platform login: %v, %v", ok, err)
		}
		if out, err := st.Run(ctx, json.RawMessage(`{"query":"go"}`)); err != nil || !strings.Contains(string(out.Result), "go.dev") {
			t.Fatalf("run = %s, %v", out.Result, err)
		}
		// The page reads the call counts' read model once: wait until it holds the call's count.
		counted := srv.eventsUntil(t, platformcall.TypeCounted, func(evs []eventstore.Envelope) bool { return len(evs) >= 1 })
		srv.waitFor(t, counted[len(counted)-1].Position)
		tb.open("/admin/caps")
		tb.el(`[data-testid=caps-usage] tr td`, `brave`)
		tb.el(`[data-testid=caps-usage] [data-testid=calls]`, `^1$`)
		tb.el(`[data-testid=caps-usage] [data-testid=cap]`, `^5$`)
		tb.shot("admin-caps-usage")
	})

	t.Run("remove the key", func(t *testing.T) {
		tb.t = t
		tb.open("/admin/platform-keys")
		row := `tr[data-key="integration:brave-search"]`
		tb.click(row+` [data-testid=remove-key]`, "")
		tb.click(`dialog button`, `Remove key`)
		tb.el(`.notice-success`, `integration:brave-search was removed`)
		tb.el(row+` [data-testid=key-state]`, `Not set`)
	})
}

func TestPlatformKeysPageIsTheAdminsInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"WORKBENCH_ADMINS": "someone-else@example.com"}, slog.LevelInfo, nil)
	tb := openTab(t, browser, srv.Base)
	tb.open(startupSignInLink(t, srv)[len(srv.Base):])
	tb.waitURL(`^/$`)
	tb.el(`nav a`, `Organisations`)
	if links, err := tb.page().Elements(`nav a`); err == nil {
		for _, l := range links {
			if txt, _ := l.Text(); strings.Contains(txt, "Platform keys") || strings.Contains(txt, "Connector catalog") {
				t.Fatalf("a non-admin sees the admin link %q", txt)
			}
		}
	}
	tb.open("/admin/platform-keys")
	tb.el(`.notice`, `Only instance admins see this page`)
	tb.open("/admin/caps")
	tb.el(`.notice`, `Only instance admins see this page`)
}
