package main

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/handlers/mcp"
)

// TestMCPSessionsFollowMainsClock: Main.Now is the clock the served MCP endpoint mints and checks
// session ids by, and the one an ended session is recorded at.
func TestMCPSessionsFollowMainsClock(t *testing.T) {
	t.Parallel()
	var ahead atomic.Int64 // how far Main's clock runs ahead of the wall clock
	srv := startE2EWith(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelWarn, func(m *Main) {
		m.Now = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	})
	ada := srv.user(t, "ada@example.com")
	send := func(method, sid, body string) (int, http.Header) {
		t.Helper()
		req, err := http.NewRequest(method, srv.Base+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+ada.Key)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header
	}
	open := func() string {
		t.Helper()
		status, h := send(http.MethodPost, "", initializeBody)
		if status != http.StatusOK || h.Get("Mcp-Session-Id") == "" {
			t.Fatalf("initialize: status %d, session id %q", status, h.Get("Mcp-Session-Id"))
		}
		return h.Get("Mcp-Session-Id")
	}
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	kept, ended := open(), open()
	if status, _ := send(http.MethodPost, kept, list); status != http.StatusOK {
		t.Fatalf("tools/list on a fresh session: status %d", status)
	}

	ahead.Store(int64(time.Hour))
	if status, _ := send(http.MethodDelete, ended, ""); status/100 != 2 {
		t.Fatalf("DELETE: status %d", status)
	}
	evs := srv.settledEvents(t, mcpsession.TypeSessionEnded, 1)
	var ev mcpsession.SessionEnded
	if err := json.Unmarshal(evs[0].Data, &ev); err != nil {
		t.Fatal(err)
	}
	if !ev.At.After(time.Now().Add(30 * time.Minute)) {
		t.Errorf("the session ended at %v by the wall clock, not by Main.Now (an hour ahead)", ev.At)
	}

	ahead.Store(int64(mcp.SessionLifetime + time.Hour))
	if status, _ := send(http.MethodPost, kept, list); status != http.StatusNotFound {
		t.Errorf("tools/list once Main's clock is past the session's lifetime: status %d, want 404", status)
	}
}
