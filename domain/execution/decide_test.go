package execution

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func complete() ToolExecuted {
	_, sum := Digest([]byte(`{}`))
	return ToolExecuted{ExecutionID: uuid.New(), UserID: uuid.New(), Tool: "utils_echo", Success: true, ArgsSHA256: sum, At: time.Now()}
}

func TestDecideRecordsAnExecutionOnce(t *testing.T) {
	// Given a new execution stream, when it is recorded, then one ToolExecuted is decided.
	ev := complete()
	got, err := Decide(State{}, Record{Event: ev})
	if err != nil || len(got) != 1 || got[0].(ToolExecuted) != ev {
		t.Fatalf("Decide = %v, %v; want the one event", got, err)
	}
	// Given that event, when the same execution is recorded again, then it is a conflict.
	s := Evolve(State{}, got[0])
	if !s.Recorded {
		t.Fatal("Evolve did not fold the record")
	}
	if _, err := Decide(s, Record{Event: ev}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("second record: %v, want CodeConflict", err)
	}
}

func TestDecideRefusesAnIncompleteRecord(t *testing.T) {
	for name, mutate := range map[string]func(*ToolExecuted){
		"no execution id":        func(e *ToolExecuted) { e.ExecutionID = uuid.Nil },
		"no user":                func(e *ToolExecuted) { e.UserID = uuid.Nil },
		"no tool":                func(e *ToolExecuted) { e.Tool = "" },
		"no time":                func(e *ToolExecuted) { e.At = time.Time{} },
		"success with a code":    func(e *ToolExecuted) { e.ErrorCode = "TOOL_ERROR" },
		"failure without a code": func(e *ToolExecuted) { e.Success = false },
		"no argument digest":     func(e *ToolExecuted) { e.ArgsSHA256 = "" },
	} {
		ev := complete()
		mutate(&ev)
		if _, err := Decide(State{}, Record{Event: ev}); domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("%s: %v, want CodeInvalid", name, err)
		}
	}
}
