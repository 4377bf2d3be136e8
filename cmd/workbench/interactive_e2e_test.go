package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
)

// startInteractiveRemote runs testdata/remote/interactive-server.mjs (the official TypeScript SDK's
// server) with token and returns its MCP endpoint.
func startInteractiveRemote(t *testing.T, clients, token string) string {
	return startNodeRemote(t, clients, "interactive-server.mjs", token)
}

// startNodeRemote runs testdata/remote/<script>, a remote MCP server written with the official
// TypeScript SDK that prints {"port": N} first, with token, and returns its MCP endpoint.
func startNodeRemote(t *testing.T, clients, script, token string) string {
	t.Helper()
	cmd := exec.Command("node", filepath.Join("testdata", "remote", script))
	cmd.Env = append(os.Environ(), "WORKBENCH_CLIENTS_DIR="+clients, "REMOTE_TOKEN="+token)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	port := make(chan int, 1)
	go func() {
		var first struct {
			Port int `json:"port"`
		}
		sc := bufio.NewScanner(out)
		if sc.Scan() && json.Unmarshal(sc.Bytes(), &first) == nil {
			port <- first.Port
		}
		close(port)
		for sc.Scan() {
		}
	}()
	select {
	case p, ok := <-port:
		if !ok || p == 0 {
			t.Fatal(script + " printed no port")
		}
		return fmt.Sprintf("http://127.0.0.1:%d/mcp", p)
	case <-time.After(60 * time.Second):
		t.Fatal(script + " did not print its port within 60s")
	}
	return ""
}

// The official TypeScript SDK client, declaring elicitation, sampling and roots, runs execute_tools of a
// remote server written with the official TypeScript SDK through Workbench: it sees the remote's
// progress, the elicitation prompt (its answer reaches the remote), the sampling and roots requests;
// its cancellation reaches the remote; the tool that requires task augmentation is listed unavailable
// and refused. The relays and the cancellation are in the audit log.
func TestInteractiveRemoteThroughExecuteTools(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t)
	const tok = "tok-interactive-remote-0123"
	endpoint := startInteractiveRemote(t, clients, tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "interactive"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"interactive","display_name":"Interactive","endpoint":{"url":%q},"auth":{"kind":"token"}}`, endpoint)
	if err := os.WriteFile(filepath.Join(dir, "interactive", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	user := srv.user(t, "ada@example.com")
	agent := login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(user.ID)}
	if _, err := srv.M.Connectors.Connect(t.Context(), user.ID, connectors.ConnectRequest{ServerID: "mcp_interactive", Owner: agent, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	// Tools that only report, read or ask are switched On for the agent (a remote's tools may start Off).
	for _, tool := range []string{"progress", "wait_cancel", "seen", "ask_name", "sample", "roots", "research"} {
		if err := srv.M.Connectors.SetSwitch(t.Context(), user.ID, agent, "mcp_interactive", "interactive_"+tool, true); err != nil {
			t.Fatal(err)
		}
	}
	out, err := runNode(t, clients, []string{"WORKBENCH_URL=" + srv.Base, "WORKBENCH_API_KEY=" + user.Key}, "interactive-client.mjs")
	checks := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var c struct {
			Check string `json:"check"`
			OK    bool   `json:"ok"`
			Error string `json:"error"`
		}
		if json.Unmarshal([]byte(line), &c) != nil || c.Check == "" {
			t.Errorf("interactive-client.mjs: %s", line)
			continue
		}
		checks++
		if !c.OK {
			t.Errorf("%s: %s", c.Check, c.Error)
		} else {
			t.Logf("%s", line)
		}
	}
	if err != nil || checks != 6 {
		t.Fatalf("interactive-client.mjs: %d checks, %v", checks, err)
	}

	relays := srv.eventsUntil(t, execution.TypeRequestRelayed, func(envs []eventstore.Envelope) bool { return len(envs) >= 3 })
	got := map[string]string{}
	for _, env := range relays {
		var ev execution.RequestRelayed
		json.Unmarshal(env.Data, &ev)
		if ev.UserID != user.ID || ev.Integration != "mcp_interactive" || strings.Contains(string(env.Data), "Ada") {
			t.Fatalf("relay record %s", env.Data)
		}
		got[ev.Method] = ev.Tool + " " + ev.Outcome
	}
	want := map[string]string{"elicitation/create": "interactive_ask_name accept", "sampling/createMessage": "interactive_sample accept", "roots/list": "interactive_roots accept"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("relays recorded %v, want %v", got, want)
	}
	runs := srv.eventsUntil(t, execution.TypeToolExecuted, func(envs []eventstore.Envelope) bool {
		for _, env := range envs {
			var ev execution.ToolExecuted
			if json.Unmarshal(env.Data, &ev) == nil && ev.Tool == "interactive_wait_cancel" {
				return true
			}
		}
		return false
	})
	for _, env := range runs {
		var ev execution.ToolExecuted
		json.Unmarshal(env.Data, &ev)
		if ev.Tool == "interactive_wait_cancel" && ev.ErrorCode != "CANCELLED" {
			t.Fatalf("the cancelled execution is recorded %+v", ev)
		}
	}
}
