package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

// A remote server written with the official TypeScript SDK answers image, audio, an embedded
// resource, a resource_link, annotations, structuredContent and an isError result; connected as a
// connector, its tools run through execute_tools, and the official TypeScript client (and the Go SDK
// client) see each as the block it is, labelled in its execution's entry, redacted.
func TestRemoteContentThroughExecuteTools(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t)
	const tok = "tok-content-remote-4242"
	endpoint := startNodeRemote(t, clients, "content-server.mjs", tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "content"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"content","display_name":"Content","endpoint":{"url":%q},"auth":{"kind":"token"}}`, endpoint)
	if err := os.WriteFile(filepath.Join(dir, "content", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(t, "ada@example.com")
	ctx := context.Background()
	agent := login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(user.ID)}
	res, err := srv.M.Connectors.Connect(ctx, user.ID, connectors.ConnectRequest{ServerID: "mcp_content", Owner: agent, Fields: map[string]string{"token": tok}})
	if err != nil || res.ListingError != "" {
		t.Fatalf("connect: %+v, %v", res, err)
	}

	out, err := runNode(t, clients, []string{"WORKBENCH_URL=" + srv.Base, "WORKBENCH_API_KEY=" + user.Key, "CONTENT_SERVER_TOKEN=" + tok}, "content-client.mjs")
	checks := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var line struct {
			Check string `json:"check"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Check == "" {
			t.Errorf("content-client.mjs printed a line that is not a check: %s", sc.Text())
			continue
		}
		checks++
		if !line.OK {
			t.Errorf("TypeScript SDK client: %s: %s", line.Check, line.Error)
		} else {
			t.Logf("pass: %s", sc.Text())
		}
	}
	if err != nil && !t.Failed() {
		t.Errorf("content-client.mjs: %v\n%s", err, out)
	}
	if checks != 4 {
		t.Errorf("content-client.mjs ran %d checks, want 4", checks)
	}

	// The Go SDK client decodes the same blocks into its own types.
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.Base + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{key: user.Key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_tools", Arguments: map[string]any{"executions": []any{map[string]any{"tool": "content_media", "args": map[string]any{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Content) != 5 {
		t.Fatalf("%d blocks", len(r.Content))
	}
	if im, ok := r.Content[1].(*mcp.ImageContent); !ok || im.MIMEType != "image/png" || !bytes.HasPrefix(im.Data, []byte("\x89PNG")) {
		t.Fatalf("block 1 = %#v", r.Content[1])
	}
	if _, ok := r.Content[4].(*mcp.ResourceLink); !ok {
		t.Fatalf("block 4 = %#v", r.Content[4])
	}
}
