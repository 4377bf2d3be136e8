package main

// The browser integration through the whole server: the official MCP client runs browser tools with
// execute_tools against a page served on 127.0.0.1, a screenshot comes back as image content, every
// call is audited, the session's lifecycle is in the log, and no Chromium is left once the server stops.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/browserpool"
)

func TestBrowserToolsEndToEnd(t *testing.T) {
	t.Parallel()
	bin := os.Getenv("WORKBENCH_CHROMIUM")
	if bin == "" {
		bin = "/usr/bin/chromium"
	}
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no Chromium at %s in CI: %v", bin, err)
		}
		t.Skipf("no Chromium at %s: %v", bin, err)
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><html><head><title>Local</title></head><body><h1>Served locally</h1></body></html>`)
	}))
	defer page.Close()

	// Registered first, so it runs after the server (registered later) has stopped.
	var pids []int
	t.Cleanup(func() {
		for _, pid := range pids {
			if left := browserpool.GroupProcesses(pid); len(left) > 0 {
				t.Errorf("Chromium %d left processes after shutdown: %v", pid, left)
			}
		}
	})
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"WORKBENCH_CHROMIUM":           bin,
	}, slog.LevelInfo)
	ada := srv.user(t, "ada@example.com")
	e := &mcpEnv{srv: srv, endpoint: srv.Base + "/mcp"}
	cs, _ := e.connectSDK(t, ada.Key)
	defer cs.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{
		ex("browser_navigate", map[string]any{"url": page.URL + "/"}),
	}}})
	if err != nil || res.IsError {
		t.Fatalf("navigate: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{
		ex("browser_screenshot", nil), ex("browser_read", nil),
	}}})
	if err != nil || res.IsError || len(res.Content) != 2 {
		t.Fatalf("screenshot and read: %v %+v", err, res)
	}
	text, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("first block %T, want text", res.Content[0])
	}
	var out execResults
	if err := json.Unmarshal([]byte(text.Text), &out); err != nil || len(out.Results) != 2 {
		t.Fatalf("results %q: %v", text.Text, err)
	}
	var read struct {
		Result struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		} `json:"result"`
	}
	if b, _ := json.Marshal(out.Results[1]); json.Unmarshal(b, &read) != nil || read.Result.Title != "Local" || read.Result.Text != "Served locally" {
		t.Fatalf("browser_read: %s", b)
	}
	img, ok := res.Content[1].(*sdk.ImageContent)
	if !ok || img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("second block %T %+v, want a PNG image", res.Content[1], res.Content[1])
	}
	// The screenshot's entry labels its block, as a remote tool's image is labelled.
	if got := string(out.Results[0]["content"]); got != `[{"block":1,"type":"image","mimeType":"image/png"}]` {
		t.Fatalf("screenshot entry content = %s", got)
	}

	// Every call is audited like any tool run; the session's start is in the log.
	audited := srv.settledEvents(t, "execution.tool_executed", 3)
	if len(audited) != 3 {
		t.Fatalf("%d tool executions recorded, want 3", len(audited))
	}
	// The record names the host reached, never the page or the URL's path.
	host := strings.TrimPrefix(page.URL, "http://")
	for _, ev := range audited {
		var rec struct {
			Tool   string `json:"tool"`
			Target string `json:"target"`
		}
		if err := json.Unmarshal(ev.Data, &rec); err != nil || rec.Target != host || strings.Contains(string(ev.Data), "Served locally") {
			t.Errorf("audit record of %s: %s", rec.Tool, ev.Data)
		}
	}
	started := srv.events(t, "browser.session_started")
	if len(started) != 1 {
		t.Fatalf("%d session starts recorded, want 1", len(started))
	}
	var st struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(started[0].Data, &st); err != nil || st.PID == 0 {
		t.Fatalf("start event %s: %v", started[0].Data, err)
	}
	pids = append(pids, st.PID)
}
