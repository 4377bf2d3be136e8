package connectortools_test

import (
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/plugins/connector"
	"github.com/workbench/workbench/plugins/todoist"
)

// The adapter-only connector: connect without its required setting stays pending with
// needs_settings; lookups fill the setting's box with the form's credentials and with the saved
// login's; a bad document is a 422 naming the problem; the first complete save connects and lists;
// calls go through the adapter with ctx.http.
func TestAdapterConnectorSettingsLookupAndCalls(t *testing.T) {
	const tok = "todo-token-0123456789"
	fake, created := connectorstest.TodoistFake(t, tok)
	raw, err := fs.ReadFile(todoist.Connectors(), "todoist/connector.json")
	if err != nil {
		t.Fatal(err)
	}
	fs := fstest.MapFS{"todoist/connector.json": {Data: raw}}
	w := newWorld(t, worldOptions{FS: fs, Adapters: map[string]connector.Adapter{"todoist": todoist.New(fake.URL)}})
	at := owner(login.ScopeAgent, agent)

	// A wrong key is refused by validate (Todoist answers 403): 422, nothing stored.
	_, err = w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: "mcp_todoist", Owner: at, Fields: map[string]string{"api_token": "wrong-token-xyz"}})
	if domain.ErrorCode(err) != domain.CodeUnprocessable {
		t.Fatalf("wrong key: %v", err)
	}
	// Lookup before the login exists, with the form's credentials.
	opts, err := w.Svc.LookupWithCredentials(w.Ctx, connectorstest.User, "mcp_todoist", "project_id", "wor", map[string]string{"api_token": tok})
	if err != nil || len(opts) != 1 || opts[0].Value != "220474323" || opts[0].Label != "Work" {
		t.Fatalf("lookup = %+v, %v", opts, err)
	}
	if _, err := w.Svc.LookupWithCredentials(w.Ctx, connectorstest.User, "mcp_todoist", "nope", "", map[string]string{"api_token": tok}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("lookup of a property without x-lookup: %v", err)
	}
	res, err := w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: "mcp_todoist", Owner: at, Fields: map[string]string{"api_token": tok}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Login.Status != login.StatusPending || !res.Login.NeedsSettings || res.Login.AccountHint != "ada@example.com" || res.Login.ListedAt != nil {
		t.Fatalf("connect = %+v", res.Login)
	}
	if got := w.Offered(agent); len(got) != 0 {
		t.Fatalf("a pending login offers %v", got)
	}
	id := res.Login.ID
	opts, err = w.Svc.LookupSaved(w.Ctx, user, id, "project_id", "")
	if err != nil || len(opts) != 2 {
		t.Fatalf("saved lookup = %+v, %v", opts, err)
	}
	if _, err := w.Svc.SaveSettings(w.Ctx, user, id, json.RawMessage(`{"project_id":"220474323","color":"red"}`)); domain.ErrorCode(err) != domain.CodeUnprocessable || !strings.Contains(domain.ErrorMessage(err), "color") {
		t.Fatalf("bad settings: %v", err)
	}
	v, err := w.Svc.SaveSettings(w.Ctx, user, id, json.RawMessage(`{"project_id":"220474323"}`))
	if err != nil || v.Status != login.StatusConnected || v.NeedsSettings || v.ListedAt == nil {
		t.Fatalf("save = %+v, %v", v, err)
	}
	// The manifest's tools; create_task is mutating: Off.
	if got := w.Offered(agent); !slices.Equal(got, []string{"todoist_list_tasks"}) {
		t.Fatalf("offered = %v", got)
	}
	o := w.Run(agent, "todoist_list_tasks", `{}`)
	if o.Code != "" || !strings.Contains(string(o.Result), "Buy milk") {
		t.Fatalf("list_tasks = %+v", o)
	}
	if o := w.Run(agent, "todoist_create_task", `{"content":"x"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("create_task ran while Off: %+v", o)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, at, "mcp_todoist", "todoist_create_task", true); err != nil {
		t.Fatal(err)
	}
	if o := w.Run(agent, "todoist_create_task", `{"content":"Write report"}`); o.Code != "" || created.Load() != 1 {
		t.Fatalf("create_task = %+v", o)
	}
	// Test a tool: by its listed name, redacted and capped.
	out, truncated, err := w.Svc.TestCall(w.Ctx, user, id, "todoist_list_tasks", nil)
	if err != nil || truncated || !strings.Contains(string(out), "Buy milk") {
		t.Fatalf("test call = %s, %v, %v", out, truncated, err)
	}
	if _, _, err := w.Svc.TestCall(w.Ctx, user, id, "todoist_nope", nil); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("test of an unknown tool: %v", err)
	}
}

// A test call's result is redacted against the login's credentials and byte-capped.
func TestTestCallRedactsAndCaps(t *testing.T) {
	const tok = "tok-test-call-secret"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)
	out, _, err := w.Svc.TestCall(w.Ctx, user, res.Login.ID, "remote_whoami", json.RawMessage(`{"text":""}`))
	if err != nil || strings.Contains(string(out), tok) || !strings.Contains(string(out), "[REDACTED]") {
		t.Fatalf("whoami test = %s, %v", out, err)
	}
	big := strings.Repeat("x", connectors.MaxTestResultBytes+10)
	out, truncated, err := w.Svc.TestCall(w.Ctx, user, res.Login.ID, "echo", json.RawMessage(`{"text":"`+big+`"}`))
	if err != nil || !truncated || len(out) > connectors.MaxTestResultBytes+200 {
		t.Fatalf("big test: %d bytes, truncated=%v, %v", len(out), truncated, err)
	}
}
