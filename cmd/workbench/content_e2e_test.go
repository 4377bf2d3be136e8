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
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

// startContentServer runs testdata/remote/content-server.mjs (the official TypeScript SDK's server)
// on 127.0.0.1 and returns its /mcp URL; it stops with the test.
func startContentServer(t *testing.T, clients, token string) string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "remote", "content-server.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "CONTENT_SERVER_TOKEN="+token, "WORKBENCH_CLIENTS_DIR="+clients)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if stderr.Len() > 0 {
			t.Logf("content-server.mjs stderr:\n%s", stderr.String())
		}
	})
	port := make(chan int, 1)
	go func() {
		var line struct {
			Port int `json:"port"`
		}
		sc := bufio.NewScanner(out)
		if sc.Scan() && json.Unmarshal(sc.Bytes(), &line) == nil {
			port <- line.Port
		}
		close(port)
		for sc.Scan() {
		}
	}()
	select {
	case p, ok := <-port:
		if !ok || p == 0 {
			t.Fatalf("content-server.mjs did not print its port (stderr: %s)", stderr.String())
		}
		return fmt.Sprintf("http://127.0.0.1:%d/mcp", p)
	case <-time.After(30 * time.Second):
		t.Fatal("content-server.mjs did not print its port within 30 s")
	}
	return ""
}

// A remote server written with the official TypeScript SDK answers image, audio, an embedded
// resource, a resource_link, annotations, structuredContent and an isError result; connected as a
// connector, its tools run through execute_tools, and the official TypeScript client (and the Go SDK
// client) see each as the block it is, labelled in its execution's entry, redacted.
func TestRemoteContentThroughExecuteTools(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t)
	const tok = "tok-content-remote-4242"
	endpoint := startContentServer(t, clients, tok)
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
