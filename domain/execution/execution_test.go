package execution_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
)

var (
	execID = uuid.MustParse("e1e1e1e1-0000-4000-8000-000000000001")
	userID = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	t0     = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
)

// ran is a complete record of a successful run: the given of every case below.
func ran() execution.ToolExecuted {
	e := execution.ToolExecuted{ExecutionID: execID, UserID: userID, Via: "oauth", ClientID: "client-1", Integration: "github",
		Tool: "github.list_repos", Success: true, DurationMS: 42, ConnectionVersion: 3, At: t0}
	e.ArgsSize, e.ArgsSHA256 = execution.Digest([]byte(`{"owner":"octocat"}`))
	e.ResultSize, e.ResultSHA256 = execution.Digest([]byte(`{"repos":[]}`))
	return e
}

// failed is a complete record of a run that failed.
func failed() execution.ToolExecuted {
	e := ran()
	e.Success, e.ErrorCode, e.ResultSize, e.ResultSHA256 = false, "NOT_CONNECTED", 0, ""
	return e
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name  string
		given execution.ToolExecuted
		when  func(*execution.ToolExecuted) // the change made to the given record
		ok    bool                          // then: Validate accepts it; else it refuses with CodeInvalid
	}{
		{name: "a complete success", given: ran(), when: func(*execution.ToolExecuted) {}, ok: true},
		{name: "a complete failure", given: failed(), when: func(*execution.ToolExecuted) {}, ok: true},
		{name: "an integration-less tool with no credential", given: ran(), when: func(e *execution.ToolExecuted) { e.Integration, e.ConnectionVersion = "", 0 }, ok: true},
		{name: "a session principal without a client id", given: ran(), when: func(e *execution.ToolExecuted) { e.Via, e.ClientID = "session", "" }, ok: true},
		{name: "empty arguments still have a digest", given: ran(), when: func(e *execution.ToolExecuted) { e.ArgsSize, e.ArgsSHA256 = execution.Digest(nil) }, ok: true},
		{name: "no execution id", given: ran(), when: func(e *execution.ToolExecuted) { e.ExecutionID = uuid.Nil }},
		{name: "no user", given: ran(), when: func(e *execution.ToolExecuted) { e.UserID = uuid.Nil }},
		{name: "no tool", given: ran(), when: func(e *execution.ToolExecuted) { e.Tool = "" }},
		{name: "no time", given: ran(), when: func(e *execution.ToolExecuted) { e.At = time.Time{} }},
		{name: "a success with an error code", given: ran(), when: func(e *execution.ToolExecuted) { e.ErrorCode = "TOOL_ERROR" }},
		{name: "a failure without an error code", given: failed(), when: func(e *execution.ToolExecuted) { e.ErrorCode = "" }},
		{name: "no argument digest", given: ran(), when: func(e *execution.ToolExecuted) { e.ArgsSHA256 = "" }},
		{name: "an argument digest of the wrong length", given: ran(), when: func(e *execution.ToolExecuted) { e.ArgsSHA256 = e.ArgsSHA256[:63] }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.given
			tt.when(&ev)
			err := ev.Validate()
			if tt.ok {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want a refusal")
			}
			if code := domain.ErrorCode(err); code != domain.CodeInvalid {
				t.Errorf("code %s (%v), want %s", code, err, domain.CodeInvalid)
			}
			if domain.ErrorMessage(err) == "" {
				t.Errorf("refusal %v has no message", err)
			}
		})
	}
}

// Digest is the size and hex SHA-256 of what was exchanged (FIPS 180-4 test vectors).
func TestDigest(t *testing.T) {
	tests := []struct {
		given string
		size  int
		sum   string
	}{
		{"", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{"abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	}
	for _, tt := range tests {
		size, sum := execution.Digest([]byte(tt.given))
		if size != tt.size || sum != tt.sum {
			t.Errorf("Digest(%q) = %d, %s; want %d, %s", tt.given, size, sum, tt.size, tt.sum)
		}
	}
}

func TestStreamName(t *testing.T) {
	if got := execution.StreamName(execID); got != "execution-e1e1e1e1-0000-4000-8000-000000000001" {
		t.Errorf("StreamName = %q", got)
	}
}

// The record survives the log: encoded by the codec the wiring uses and decoded by its type name, it
// is the same record. The type name and the field names are the log's format and are pinned here.
func TestEventSurvivesTheLog(t *testing.T) {
	tests := []struct {
		given  execution.ToolExecuted
		fields []string // then: the JSON keys, sorted
	}{
		{ran(), []string{"args_sha256", "args_size", "at", "client_id", "connection_version", "duration_ms", "execution_id",
			"integration", "result_sha256", "result_size", "success", "tool", "user_id", "via"}},
		// Empty optional fields stay out of the log.
		{func() execution.ToolExecuted { e := failed(); e.ClientID, e.ConnectionVersion = "", 0; return e }(),
			[]string{"args_sha256", "args_size", "at", "duration_ms", "error_code", "execution_id", "integration", "result_size",
				"success", "tool", "user_id", "via"}},
	}
	codec := eventstore.NewJSONCodec(execution.Events()...)
	for _, tt := range tests {
		typ, sv, data, err := codec.Encode(tt.given)
		if err != nil {
			t.Fatal(err)
		}
		if typ != "execution.tool_executed" || sv != 1 {
			t.Errorf("type %q schema %d, want execution.tool_executed 1", typ, sv)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, tt.fields) {
			t.Errorf("fields = %v, want %v", got, tt.fields)
		}
		back, err := codec.Decode(typ, sv, data)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(domain.Event(tt.given), back); diff != "" {
			t.Errorf("the record changed in the log (-want +got):\n%s", diff)
		}
	}
}
