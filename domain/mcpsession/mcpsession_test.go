package mcpsession_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/mcpsession"
	"github.com/workbench/workbench/eventstore"
)

var (
	t0      = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	ended   = mcpsession.SessionEnded{SessionID: "c2Vzc2lvbi1pZA.c2lnbmF0dXJl", ExpiresAt: t0.Add(24 * time.Hour), At: t0}
	longest = strings.Repeat("s", 128)
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		when func(*mcpsession.SessionEnded) // the change made to the given, complete, event
		ok   bool                           // then: Validate accepts it; else it refuses with CodeInvalid
	}{
		{name: "a complete end", when: func(*mcpsession.SessionEnded) {}, ok: true},
		{name: "the longest session id", when: func(e *mcpsession.SessionEnded) { e.SessionID = longest }, ok: true},
		{name: "no session id", when: func(e *mcpsession.SessionEnded) { e.SessionID = "" }},
		{name: "a session id over 128 bytes", when: func(e *mcpsession.SessionEnded) { e.SessionID = longest + "s" }},
		{name: "no expiry", when: func(e *mcpsession.SessionEnded) { e.ExpiresAt = time.Time{} }},
		{name: "no time", when: func(e *mcpsession.SessionEnded) { e.At = time.Time{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := ended
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

// One stream per session, so that ending it twice meets the store's no-stream check.
func TestStreamName(t *testing.T) {
	if got := mcpsession.StreamName("abc"); got != "mcp-session-abc" {
		t.Errorf("StreamName = %q", got)
	}
	if mcpsession.StreamName("a") == mcpsession.StreamName("b") {
		t.Error("two sessions share a stream")
	}
}

// The event survives the log: encoded by the codec the wiring uses and decoded by its type name, it is
// the same event. The type name and the field names are the log's format and are pinned here.
func TestEventSurvivesTheLog(t *testing.T) {
	codec := eventstore.NewJSONCodec(mcpsession.Events()...)
	typ, sv, data, err := codec.Encode(ended)
	if err != nil {
		t.Fatal(err)
	}
	if typ != "mcp.session_ended" || sv != 1 {
		t.Errorf("type %q schema %d, want mcp.session_ended 1", typ, sv)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(m)), []string{"at", "expires_at", "session_id"}; !slices.Equal(got, want) {
		t.Errorf("fields = %v, want %v", got, want)
	}
	back, err := codec.Decode(typ, sv, data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(domain.Event(ended), back); diff != "" {
		t.Errorf("the event changed in the log (-want +got):\n%s", diff)
	}
	if len(mcpsession.Events()) != 1 {
		t.Errorf("Events() has %d types, want 1 (add the new one to this test)", len(mcpsession.Events()))
	}
}
