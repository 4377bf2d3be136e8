package executions

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
)

// sourceFunc offers one tool, remote_run, that runs run.
type sourceFunc func(ctx context.Context) (json.RawMessage, error)

func (f sourceFunc) FindTool(_ context.Context, _ Caller, name string) (SourceTool, bool, error) {
	if name != "remote_run" {
		return SourceTool{}, false, nil
	}
	return SourceTool{Integration: "remote", Run: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) { return f(ctx) }}, true, nil
}

type sinkFunc func(progress, total float64, message string)

func (f sinkFunc) Progress(progress, total float64, message string) { f(progress, total, message) }

// An execution whose call is cancelled while it runs is recorded CANCELLED, not TOOL_ERROR.
func TestRunRecordsACancelledExecution(t *testing.T) {
	store := sqliteStore(t)
	started := make(chan struct{})
	src := sourceFunc(func(ctx context.Context) (json.RawMessage, error) {
		close(started)
		<-ctx.Done()
		return nil, domain.Errorf(domain.CodeUpstream, "the call was cancelled")
	})
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: store, Sources: []ToolSource{src}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	outc := make(chan []Outcome, 1)
	go func() { outc <- svc.Run(ctx, caller, []Call{{Tool: "remote_run"}}) }()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the tool did not start within 30s")
	}
	cancel()
	out := <-outc
	if out[0].Code != CodeCancelled {
		t.Fatalf("outcome %+v, want %s", out[0], CodeCancelled)
	}
	envs, err := store.ReadAll(context.Background(), eventstore.Start, 10)
	if err != nil || len(envs) != 1 {
		t.Fatalf("records: %d, %v", len(envs), err)
	}
	var ev execution.ToolExecuted
	if err := json.Unmarshal(envs[0].Data, &ev); err != nil || ev.ErrorCode != CodeCancelled || ev.Success {
		t.Fatalf("record %s: %v", envs[0].Data, err)
	}
}

// A tool's progress reaches the call's sink labelled with its execution's index; with several
// executions the progress sent is the sum of theirs, so it still increases.
func TestRunLabelsProgressWithTheExecution(t *testing.T) {
	src := sourceFunc(func(ctx context.Context) (json.RawMessage, error) {
		mcppeer.Report(ctx, 1, 4, "one")
		mcppeer.Report(ctx, 3, 4, "three")
		mcppeer.Report(ctx, 2, 4, "back") // not an increase: dropped
		return json.RawMessage(`{}`), nil
	})
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: sqliteStore(t), Sources: []ToolSource{src}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ctx := mcppeer.WithSink(context.Background(), sinkFunc(func(progress, total float64, message string) {
		got = append(got, fmt.Sprintf("%g/%g %s", progress, total, message))
	}))
	out := svc.Run(ctx, caller, []Call{{Tool: "utils_echo", Args: json.RawMessage(`{"message":"x"}`)}, {Tool: "remote_run"}})
	if out[0].Code != "" || out[1].Code != "" {
		t.Fatalf("outcomes %+v", out)
	}
	want := []string{"1/0 execution 1: one (1/4)", "3/0 execution 1: three (3/4)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress %q, want %q", got, want)
	}
}
