package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-rod/rod"
)

// The connector registry in the portal, in Chromium: the instance admin (the startup link's user)
// opens Install from registry, sees the verified entry with its publisher and a broken one with its
// problems, installs the first, and sees it installed. The server then restarts on the same database
// with no registry configured, and the installed row is still in the catalog, source registry.
func TestRegistryInstallInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	reg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(reg, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"notes/connector.json": `{"slug":"notes","display_name":"Team notes","description":"The team's notes over MCP.","version":"1.4.0","publisher":"Acme Ltd",
			"endpoint":{"url":"http://127.0.0.1:9/mcp"},"auth":{"kind":"token"}}`,
		"half.json":    `{"slug":"half","display_name":"Half","auth":{"kind":"token"}}`,
		"verified.txt": "notes\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(reg, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	db := filepath.Join(t.TempDir(), "wb.db")
	t.Run("install", func(t *testing.T) { installFromRegistryInChromium(t, browser, db, reg) })
	if t.Failed() {
		return
	}
	// Restart on the same database, with no registry: the row is an event, not a folder.
	again := startE2E(t, db, map[string]string{"WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelInfo)
	v, err := again.M.Connectors.Server(context.Background(), "mcp_notes")
	if err != nil || v.Source != "registry" || !v.Verified || v.Publisher != "Acme Ltd" || !v.Enabled {
		t.Fatalf("after the restart: %+v, %v", v, err)
	}
}

// installFromRegistryInChromium serves db with the registry reg until the subtest ends.
func installFromRegistryInChromium(t *testing.T, browser *rod.Browser, db, reg string) {
	srv := startE2E(t, db, map[string]string{"CONNECTOR_REGISTRY_DIR": reg, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelInfo)
	tb := openTab(t, browser, srv.Base)
	link := startupSignInLink(t, srv)
	tb.open(link[len(srv.Base):])
	tb.waitURL(`^/$`)

	tb.open("/admin/registry")
	tb.el(`article[data-registry=notes] [data-testid=registry-verified]`, `Verified`)
	tb.el(`article[data-registry=notes] [data-testid=registry-publisher]`, `Acme Ltd`)
	tb.el(`article[data-registry=half] [data-testid=registry-problems]`, `endpoint, an adapter, or both`)
	tb.shot("registry")
	tb.click(`article[data-registry=notes] [data-testid=registry-install]`, "")
	tb.el(`[data-testid=registry-status] .notice-success`, `mcp_notes`)
	tb.el(`article[data-registry=notes] [data-testid=registry-installed]`, `Installed \(registry\)`)
	tb.shot("registry-installed")
	v, err := srv.M.Connectors.Server(context.Background(), "mcp_notes")
	if err != nil || v.Source != "registry" || !v.Verified || v.Publisher != "Acme Ltd" || v.Version != "1.4.0" {
		t.Fatalf("installed row: %+v, %v", v, err)
	}
}
