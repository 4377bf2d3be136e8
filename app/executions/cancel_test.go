package executions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/mcppeer"
)

// sourceFunc offers one tool, remote_run, that runs run.
type sourceFunc func(ctx context.Context) (json.RawMessage, error)

func (f sourceFunc) FindTool(_ context.Context, _ Caller, name, _ string) (SourceTool, bool, error) {
	if name != "remote_run" {
		return SourceTool{}, false, nil
	}
	return SourceTool{Integration: "remote", Run: func(ctx context.Context, _ json.RawMessage) (ToolResult, error) {
		r, err := f(ctx)
		return ToolResult{Result: r}, err
	}}, true, nil
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

// answerFunc is the agent's client of a relay.
type answerFunc func(method string) (json.RawMessage, error)

func (f answerFunc) Request(_ context.Context, method string, _ json.RawMessage) (json.RawMessage, error) {
	return f(method)
}

// Every request a remote relays to the agent's client during an execution is recorded as a
// request_relayed event of that execution: the method and the answer's outcome, never the content.
func TestRunRecordsRelayedRequests(t *testing.T) {
	store := sqliteStore(t)
	src := sourceFunc(func(ctx context.Context) (json.RawMessage, error) {
		if _, err := mcppeer.Ask(ctx, "elicitation/create", json.RawMessage(`{"message":"the secret question"}`)); err != nil {
			return nil, err
		}
		if _, err := mcppeer.Ask(ctx, "sampling/createMessage", json.RawMessage(`{"messages":[]}`)); err == nil {
			return nil, domain.Errorf(domain.CodeUpstream, "the refused sampling answered")
		}
		return json.RawMessage(`{}`), nil
	})
	svc, err := New(Options{Registry: registry(t), Credentials: creds{}, Store: store, Sources: []ToolSource{src}})
	if err != nil {
		t.Fatal(err)
	}
	agent := answerFunc(func(method string) (json.RawMessage, error) {
		if method == "elicitation/create" {
			return json.RawMessage(`{"action":"decline","content":{"answer":"the secret answer"}}`), nil
		}
		return nil, &mcppeer.RemoteError{Code: -1, Message: "the user refused"}
	})
	ctx := mcppeer.WithClient(context.Background(), mcppeer.Elicitation|mcppeer.Sampling, agent)
	out := svc.Run(ctx, caller, []Call{{Tool: "remote_run"}})
	if out[0].Code != "" {
		t.Fatalf("outcome %+v", out[0])
	}
	envs, err := store.ReadAll(context.Background(), eventstore.Start, 10)
	if err != nil || len(envs) != 3 {
		t.Fatalf("records: %d, %v", len(envs), err)
	}
	var got []string
	var execID string
	for _, env := range envs {
		if strings.Contains(string(env.Data), "secret") {
			t.Fatalf("content in the record: %s", env.Data)
		}
		switch env.Type {
		case execution.TypeRequestRelayed:
			var ev execution.RequestRelayed
			if err := json.Unmarshal(env.Data, &ev); err != nil || ev.Tool != "remote_run" || ev.Integration != "remote" || ev.UserID != caller.UserID {
				t.Fatalf("relay record %s: %v", env.Data, err)
			}
			got = append(got, ev.Method+" "+ev.Mode+" "+ev.Outcome)
			if execID != "" && execID != ev.ExecutionID.String() {
				t.Fatalf("the relays name different executions")
			}
			execID = ev.ExecutionID.String()
		case execution.TypeToolExecuted:
			var ev execution.ToolExecuted
			json.Unmarshal(env.Data, &ev)
			if execID != "" && execID != ev.ExecutionID.String() {
				t.Fatalf("the relays name another execution than %s", ev.ExecutionID)
			}
		}
	}
	if fmt.Sprint(got) != "[elicitation/create form decline sampling/createMessage  error]" {
		t.Fatalf("relays recorded: %q", got)
	}
}
