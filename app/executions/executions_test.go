package executions

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/sqlite"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
)

// creds answers every integration needing no credential as connected and the others as not.
type creds struct{}

func (creds) Access(_ context.Context, _ uuid.UUID, in *plugins.Integration, _ string) (connections.Access, error) {
	if in.Auth.Mode == plugins.AuthNone {
		return connections.Access{}, nil
	}
	return connections.Access{}, domain.Errorf(domain.CodeNotConnected, "%s is not connected", in.Name)
}

// failing refuses every append, as a full disk or a lost database would.
type failing struct{}

func (failing) Append(context.Context, string, eventstore.ExpectedVersion, ...eventstore.EventData) (eventstore.Position, error) {
	return eventstore.Position{}, errors.New("disk full")
}

func registry(t *testing.T) *plugins.Registry {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "plugins", "boom")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"boom","version":"1.0.0","display_name":"Boom","description":"Panics.","auth":{"mode":"none"}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`[{"name":"boom_now","description":"Panics when run, always.","input_schema":{"type":"object","additionalProperties":false},"handler":"go"}]`), 0o644)
	reg, problems := plugins.Load(context.Background(), plugins.Options{Builtins: shipped.Plugins(), PluginsDir: filepath.Dir(dir),
		Handlers: map[string]plugins.Handler{"boom_now": func(context.Context, plugins.Context, json.RawMessage) (any, error) { panic("kaboom") }}})
	if len(problems) > 0 {
		t.Fatalf("plugins: %v", problems)
	}
	return reg
}

func sqliteStore(t *testing.T) *sqlite.Store {
	t.Helper()
	return testenv.OpenSQLite(t).Store
}

var caller = Caller{UserID: uuid.New(), Via: "api_key", ClientID: "key-1"}

// Every outcome, success or failure, is recorded once in the log before Run returns it, with digests
// and never the content.
func TestRunRecordsEveryOutcome(t *testing.T) {
	store := sqliteStore(t)
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Run(context.Background(), caller, []Call{
		{Tool: "utils_echo", Args: json.RawMessage(`{"message":"hi there"}`)},
		{Tool: "newrelic_get_current_user"},
		{Tool: "nope_tool"},
		{Tool: "utils_echo", Args: json.RawMessage(`{"message":7}`)},
		{Tool: "boom_now"},
	})
	want := []string{"", CodeNotConnected, CodeUnknownTool, CodeInvalidArgs, CodeToolError}
	for i, o := range out {
		if o.Code != want[i] || o.Withheld {
			t.Fatalf("outcome %d: %+v, want code %q", i, o, want[i])
		}
	}
	if string(out[0].Result) != `{"message":"hi there"}` || out[1].Integration.Name != "newrelic" || out[2].Integration != nil ||
		out[4].Integration.Name != "boom" {
		t.Fatalf("outcomes: %+v", out)
	}
	envs, err := store.ReadAll(context.Background(), eventstore.Start, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(envs) != len(out) {
		t.Fatalf("%d records for %d executions", len(envs), len(out))
	}
	codes := map[string]bool{}
	for _, env := range envs {
		var ev execution.ToolExecuted
		if err := json.Unmarshal(env.Data, &ev); err != nil || env.Type != execution.TypeToolExecuted || env.Version != 1 {
			t.Fatalf("%s v%d: %v", env.Type, env.Version, err)
		}
		if env.Stream != execution.StreamName(ev.ExecutionID) || env.Metadata.Actor != caller.UserID.String() || env.Metadata.MCPClient != "key-1" {
			t.Fatalf("envelope: %+v", env)
		}
		// Time-ordered ids: a record lands at the end of the stream and event id indexes, not on a
		// random page of them.
		if env.ID.Version() != 7 || ev.ExecutionID.Version() != 7 {
			t.Fatalf("event id %s, execution id %s: want UUIDv7", env.ID, ev.ExecutionID)
		}
		if strings.Contains(string(env.Data), "hi there") {
			t.Fatalf("content in the record: %s", env.Data)
		}
		if ev.Tool == "boom_now" && ev.Integration != "boom" {
			t.Fatalf("a panicking tool's record lost its integration: %+v", ev)
		}
		codes[ev.ErrorCode] = true
	}
	if len(codes) != len(want) {
		t.Fatalf("recorded codes %v, want %v", codes, want)
	}
}

// Fail closed: when the record cannot be appended, the outcome is withheld and holds no result.
func TestRunWithholdsAnUnrecordedOutcome(t *testing.T) {
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: failing{}})
	if err != nil {
		t.Fatal(err)
	}
	out := svc.Run(context.Background(), caller, []Call{{Tool: "utils_echo", Args: json.RawMessage(`{"message":"secret"}`)}, {Tool: "nope_tool"}})
	for i, o := range out {
		if !o.Withheld || o.Result != nil || !strings.Contains(o.Message, "audit record") {
			t.Fatalf("outcome %d released without its record: %+v", i, o)
		}
	}
}

// The record is appended even when the caller has gone: the tool has run.
func TestRunRecordsAfterTheCallerLeft(t *testing.T) {
	store := sqliteStore(t)
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: store, Now: func() time.Time { return time.Unix(1e9, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := svc.Run(ctx, caller, []Call{{Tool: "nope_tool"}})
	if out[0].Withheld {
		t.Fatalf("withheld: %+v", out[0])
	}
	envs, err := store.ReadAll(context.Background(), eventstore.Start, 10)
	if err != nil || len(envs) != 1 {
		t.Fatalf("records: %d, %v", len(envs), err)
	}
}
