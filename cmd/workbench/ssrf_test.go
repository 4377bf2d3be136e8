package main

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestToolCallsNeverReachPrivateAddresses: a plugin whose base_url names an address inside the network
// (here loopback, where a fake service listens) is refused when the connection is dialled, unless the
// explicit development setting allows loopback.
func TestToolCallsNeverReachPrivateAddresses(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	inside := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.Write([]byte(`{"secret":"from inside the network"}`)) //nolint:errcheck
	}))
	defer inside.Close()
	dir := filepath.Join(t.TempDir(), "plugins", "intranet")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"intranet","version":"1","display_name":"Intranet","description":"An internal service.","base_url":"`+inside.URL+`","auth":{"mode":"none"}}`), 0o644)                                 //nolint:errcheck
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`[{"name":"intranet_get","description":"Reads the internal service's root document.","input_schema":{"type":"object","additionalProperties":false},"http":{"method":"GET","path":"/"}}]`), 0o644) //nolint:errcheck

	s := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"PLUGINS_DIR": filepath.Dir(dir)}, slog.LevelWarn)
	ada := s.user(t, "ada@example.com")
	body := rpc(t, s.Base, ada.Key, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute_tools","arguments":{"executions":[{"tool":"intranet_get"}]}}}`)
	t.Logf("answer: %s", body)
	if hits.Load() != 0 || strings.Contains(body, "from inside the network") || !strings.Contains(body, "not public") {
		t.Fatalf("a tool reached a loopback service without the dev setting (%d hits): %s", hits.Load(), body)
	}
}

// rpc initializes a session and sends one JSON-RPC request, returning the response body.
func rpc(t *testing.T, base, key, body string) string {
	t.Helper()
	send := func(sid, payload string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(payload))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, _ := send("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
	_, out := send(resp.Header.Get("Mcp-Session-Id"), body)
	return out
}
