package executions

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

func TestDetailCode(t *testing.T) {
	for msg, want := range map[string]string{
		"browser_navigate: HUMAN_IN_CONTROL: a person is driving this browser": "HUMAN_IN_CONTROL",
		"HUMAN_IN_CONTROL: a person is driving":                                "HUMAN_IN_CONTROL",
		"BROWSER_SESSION_BUSY: retry":                                          "BROWSER_SESSION_BUSY",
		"github_list_repos: the API answered 500":                              "",
		"the URL is HTTP: not allowed":                                         "",
		"NOT_A_CODE without a colon":                                           "",
		"":                                                                     "",
		"abcHUMAN_IN_CONTROL: inside a word":                                   "",
	} {
		if got := detailCode(msg); got != want {
			t.Errorf("detailCode(%q) = %q, want %q", msg, got, want)
		}
	}
}

// A tool failing with its own code (a browser tool while a person drives the session) is recorded as
// TOOL_ERROR with that code as error_detail, and never with the message.
func TestRunRecordsTheToolsOwnCode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plugins", "held")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"held","version":"1.0.0","display_name":"Held","description":"Always held.","auth":{"mode":"none"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`[{"name":"held_click","description":"Answers HUMAN_IN_CONTROL, always.","input_schema":{"type":"object","additionalProperties":false},"handler":"go"}]`), 0o644)
	const message = "HUMAN_IN_CONTROL: a person is driving this browser at https://private.example/inbox; retry later"
	reg, problems := plugins.Load(context.Background(), plugins.Options{Builtins: shipped.Plugins(), PluginsDir: filepath.Dir(dir),
		Handlers: map[string]plugins.Handler{"held_click": func(context.Context, plugins.Context, json.RawMessage) (any, error) {
			return nil, &domain.Error{Code: domain.CodeConflict, Message: message}
		}}})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	store := sqliteStore(t)
	svc, err := New(Options{Registry: reg, Credentials: creds{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Run(context.Background(), caller, []Call{{Tool: "held_click"}})
	if out[0].Code != CodeToolError || !strings.Contains(out[0].Message, "HUMAN_IN_CONTROL") {
		t.Fatalf("outcome %+v", out[0])
	}
	envs, err := store.ReadAll(context.Background(), eventstore.Start, 10)
	if err != nil || len(envs) != 1 {
		t.Fatalf("%d records: %v", len(envs), err)
	}
	var ev execution.ToolExecuted
	if err := json.Unmarshal(envs[0].Data, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.ErrorCode != CodeToolError || ev.ErrorDetail != "HUMAN_IN_CONTROL" {
		t.Errorf("recorded %q / %q, want TOOL_ERROR / HUMAN_IN_CONTROL", ev.ErrorCode, ev.ErrorDetail)
	}
	if strings.Contains(string(envs[0].Data), "private.example") {
		t.Errorf("the message is in the record: %s", envs[0].Data)
	}
}
