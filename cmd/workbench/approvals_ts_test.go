package main

// Approvals asked through the official TypeScript SDK's client (testdata/clients/elicitation-client.mjs):
// a tool switched to Ask at the agent makes Workbench send the client elicitation/create, which the SDK
// validates before its handler runs; accept runs the call once, decline runs nothing and answers
// APPROVAL_DENIED. The remote MCP server counts the calls that reach it.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
)

// tsElicitationRun is what elicitation-client.mjs prints.
type tsElicitationRun struct {
	Text         *string `json:"text"`
	IsError      *bool   `json:"isError"`
	Elicitations []struct {
		Message         string         `json:"message"`
		Mode            string         `json:"mode"`
		RequestedSchema map[string]any `json:"requestedSchema"`
	} `json:"elicitations"`
	Requests []json.RawMessage `json:"requests"`
	Rejected []json.RawMessage `json:"rejected"`
	Errors   []string          `json:"errors"`
}

func TestApprovalsWithTheTypeScriptClient(t *testing.T) {
	t.Parallel()
	clients := clientsDir(t)
	const tok = "tok-approvals-ts-0123"
	remote := connectorstest.NewRemote(t, tok)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "remote"), 0o755)
	manifest := fmt.Sprintf(`{"slug":"remote","display_name":"Remote","endpoint":{"url":%q},"auth":{"kind":"token"}}`, remote.URL())
	if err := os.WriteFile(filepath.Join(dir, "remote", "connector.json"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{"CONNECTORS_DIR": dir, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"}, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	agent := organization.DefaultAgentID(ada.ID)
	if _, err := srv.M.Connectors.Connect(t.Context(), ada.ID, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: login.Owner{Scope: login.ScopeAgent, ID: agent}, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"owner_scope": "agent", "owner_id": agent.String(), "mcp_server_id": "mcp_remote", "tool": "remote_echo", "state": "ask"})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPut, srv.Base+"/api/mcp/switches", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", srv.Base)
	cookie, err := srv.M.Sessions.Cookie(ada.ID)
	if err != nil {
		t.Fatal(err)
	}
	req.AddCookie(cookie)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("switch remote_echo to Ask: %d", resp.StatusCode)
	}

	// run runs the script once, answering action, and returns what it printed and execute_tools' only
	// result entry.
	run := func(action, text string) (tsElicitationRun, map[string]json.RawMessage) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"text": text})
		out, err := runNode(t, clients, []string{"WORKBENCH_URL=" + srv.Base, "WORKBENCH_API_KEY=" + ada.Key},
			"elicitation-client.mjs", action, "remote_echo", string(args))
		t.Logf("elicitation-client.mjs %s: %s", action, bytes.TrimSpace(out))
		var r tsElicitationRun
		if jerr := json.Unmarshal(bytes.TrimSpace(out), &r); jerr != nil || err != nil || len(r.Errors) > 0 {
			t.Fatalf("elicitation-client.mjs %s: %v; %v; %s", action, err, jerr, out)
		}
		if len(r.Rejected) > 0 {
			t.Errorf("the TypeScript SDK refused Workbench's elicitation/create: %s (request: %s)", r.Rejected, r.Requests)
		}
		// A batch whose every execution failed is isError (the declined run's); its text is still the results.
		if r.Text == nil || r.IsError == nil || *r.IsError != (action != "accept") {
			t.Fatalf("execute_tools with %s: %s", action, out)
		}
		var results struct {
			Results []map[string]json.RawMessage `json:"results"`
		}
		if err := json.Unmarshal([]byte(*r.Text), &results); err != nil || len(results.Results) != 1 {
			t.Fatalf("execute_tools answered %s", *r.Text)
		}
		// The user is asked exactly once, with a message naming the tool, its integration, the account
		// and the arguments, and a form without fields.
		if len(r.Elicitations) != 1 {
			t.Fatalf("the client was asked %d times, want once: %s", len(r.Elicitations), out)
		}
		e := r.Elicitations[0]
		for _, want := range []string{"remote_echo", "mcp_remote", "account default", string(args)} {
			if !strings.Contains(e.Message, want) {
				t.Errorf("the user was asked %q, which does not name %s", e.Message, want)
			}
		}
		// The SDK's handler sees the request as sent: mode absent is form mode (its own check fills it in
		// on a copy).
		if (e.Mode != "" && e.Mode != "form") || e.RequestedSchema["type"] != "object" || fmt.Sprint(e.RequestedSchema["properties"]) != "map[]" {
			t.Errorf("the elicitation: mode %q, requestedSchema %v", e.Mode, e.RequestedSchema)
		}
		return r, results.Results[0]
	}
	str := func(raw json.RawMessage) string {
		var s string
		json.Unmarshal(raw, &s) //nolint:errcheck // absent is ""
		return s
	}

	_, accepted := run("accept", "yes")
	var res struct {
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal(accepted["result"], &res) //nolint:errcheck // checked below
	if len(res.Content) == 0 || res.Content[0].Text != "echo: yes" || accepted["error"] != nil {
		t.Fatalf("accepted: %v", accepted)
	}
	if n := remote.Calls.Load(); n != 1 {
		t.Fatalf("after accept the remote was called %d times, want 1", n)
	}

	_, declined := run("decline", "no")
	if str(declined["error"]) != "APPROVAL_DENIED" || declined["result"] != nil || !strings.Contains(str(declined["message"]), "did not run") {
		t.Fatalf("declined: %v", declined)
	}
	if n := remote.Calls.Load(); n != 1 {
		t.Fatalf("after decline the remote was called %d times, want still 1", n)
	}

	// Both execution records name their approval: one ran, one was denied; the approvals' streams say
	// how each was decided.
	records := srv.settledEvents(t, execution.TypeToolExecuted, 2)
	if len(records) != 2 {
		t.Fatalf("%d execution records, want 2", len(records))
	}
	streams := map[string]string{}
	for _, env := range records {
		var ev execution.ToolExecuted
		if err := json.Unmarshal(env.Data, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.ApprovalID == uuid.Nil || ev.Tool != "remote_echo" || ev.Integration != "mcp_remote" || ev.Success != (ev.ErrorCode == "") {
			t.Errorf("execution record %s", env.Data)
		}
		envs, err := srv.M.Store.Load(t.Context(), approval.StreamName(ev.ApprovalID), 0)
		if err != nil {
			t.Fatal(err)
		}
		var types []string
		for _, e := range envs {
			types = append(types, e.Type)
		}
		streams[ev.ErrorCode] = strings.Join(types, " ")
	}
	want := map[string]string{
		"":                "approval.requested approval.approved approval.used",
		"APPROVAL_DENIED": "approval.requested approval.denied",
	}
	if fmt.Sprint(streams) != fmt.Sprint(want) {
		t.Errorf("records by code, with their approval's stream: %v, want %v", streams, want)
	}
}
