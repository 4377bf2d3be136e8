package browserdom_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/browserdom"
	"github.com/workbench/workbench/eventstore"
)

var (
	user    = uuid.MustParse("0190c7e4-0000-7000-8000-000000000001")
	t0      = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	started = browserdom.BrowserSessionStarted{UserID: user, PID: 4242, SpawnMS: 310, At: t0, Replica: "http://10.0.0.1:8080"}
	stopped = browserdom.BrowserSessionStopped{UserID: user, Reason: browserdom.StopIdle, At: t0.Add(time.Minute)}
	reset   = browserdom.BrowserSessionReset{UserID: user, At: t0.Add(2 * time.Minute)}
	handed  = browserdom.BrowserControlHandedOver{UserID: user, At: t0.Add(3 * time.Minute)}
	back    = browserdom.BrowserControlTakenBack{UserID: user, At: t0.Add(4 * time.Minute)}
	capture = browserdom.BrowserCookiesCaptured{UserID: user, Integration: "intranet", Domains: []string{"intranet.example.com"}, Count: 2, At: t0}
)

func fold(events ...domain.Event) browserdom.State {
	s := browserdom.State{}
	for _, e := range events {
		s = browserdom.Evolve(s, e)
	}
	return s
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name  string
		given []domain.Event
		when  browserdom.Command
		then  []domain.Event // nil: nothing recorded
		code  domain.Code    // a refusal's code
	}{
		{name: "a first start is recorded", when: browserdom.RecordStart{Event: started}, then: []domain.Event{started}},
		{name: "a restart is recorded", given: []domain.Event{started}, when: browserdom.RecordStart{Event: started}, then: []domain.Event{started}},
		{name: "a stop of a running session is recorded", given: []domain.Event{started}, when: browserdom.RecordStop{Event: stopped}, then: []domain.Event{stopped}},
		{name: "a stop of a stopped session records nothing", given: []domain.Event{started, stopped}, when: browserdom.RecordStop{Event: stopped}},
		{name: "a reset is always recorded", when: browserdom.RecordReset{Event: reset}, then: []domain.Event{reset}},
		{name: "a capture is recorded", given: []domain.Event{started}, when: browserdom.RecordCapture{Event: capture}, then: []domain.Event{capture}},
		{name: "a hand-over is recorded", given: []domain.Event{started}, when: browserdom.HandOver{Event: handed}, then: []domain.Event{handed}},
		{name: "a second hand-over records nothing", given: []domain.Event{started, handed}, when: browserdom.HandOver{Event: handed}},
		{name: "a take-back is recorded", given: []domain.Event{started, handed}, when: browserdom.TakeBack{Event: back}, then: []domain.Event{back}},
		{name: "a take-back without a hand-over records nothing", given: []domain.Event{started}, when: browserdom.TakeBack{Event: back}},
		{name: "a stop ends a person's control", given: []domain.Event{started, handed, stopped}, when: browserdom.TakeBack{Event: back}},
		{name: "a start without a process is refused", when: browserdom.RecordStart{Event: browserdom.BrowserSessionStarted{UserID: user, At: t0}}, code: domain.CodeInvalid},
		{name: "a stop with an unknown reason is refused", given: []domain.Event{started}, when: browserdom.RecordStop{Event: browserdom.BrowserSessionStopped{UserID: user, Reason: "bored", At: t0}}, code: domain.CodeInvalid},
		{name: "a capture without domains is refused", when: browserdom.RecordCapture{Event: browserdom.BrowserCookiesCaptured{UserID: user, Integration: "x", At: t0}}, code: domain.CodeInvalid},
		{name: "a hand-over without a user is refused", when: browserdom.HandOver{Event: browserdom.BrowserControlHandedOver{At: t0}}, code: domain.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := browserdom.Decide(fold(tt.given...), tt.when)
			if tt.code != "" {
				if domain.ErrorCode(err) != tt.code {
					t.Fatalf("Decide = %v, %v; want a refusal with %s", got, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.then, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestState(t *testing.T) {
	s := fold(started, handed)
	if !s.Running || !s.HumanInControl || s.Starts != 1 {
		t.Fatalf("after start and hand-over: %+v", s)
	}
	if s = fold(started, handed, reset); s.Running || s.HumanInControl {
		t.Fatalf("after a reset: %+v", s)
	}
	// The holder is the replica of the last start, until a stop or a reset.
	onA, onB := started, started
	onA.Replica, onB.Replica = "http://10.0.0.1:8080", "http://10.0.0.2:8080"
	if s = fold(onA); s.Holder != onA.Replica {
		t.Fatalf("after a start on A: %+v", s)
	}
	if s = fold(onA, stopped); s.Holder != "" || s.Running {
		t.Fatalf("after a stop: %+v", s)
	}
	if s = fold(onA, stopped, onB); s.Holder != onB.Replica {
		t.Fatalf("after a start on B: %+v", s)
	}
	// A stop on a replica that is not the holder leaves the holder's session running.
	stoppedOnA := stopped
	stoppedOnA.Replica = onA.Replica
	if s = fold(onA, onB, stoppedOnA); !s.Running || s.Holder != onB.Replica {
		t.Fatalf("after A's stop with B holding: %+v", s)
	}
	if s = fold(onA, stoppedOnA); s.Running || s.Holder != "" {
		t.Fatalf("after the holder's stop: %+v", s)
	}
	if s = fold(onB, reset); s.Holder != "" {
		t.Fatalf("after a reset: %+v", s)
	}
	// A start from before the replica was recorded decodes with none.
	codec := eventstore.NewJSONCodec(browserdom.Events()...)
	ev, err := codec.Decode(browserdom.TypeSessionStarted, 1, []byte(`{"user_id":"`+user.String()+`","pid":7,"spawn_ms":1,"at":"2026-03-01T09:00:00Z"}`))
	if err != nil || ev.(browserdom.BrowserSessionStarted).Replica != "" {
		t.Fatalf("an old start: %+v %v", ev, err)
	}
}

// Every event survives the log under its pinned type name.
func TestEventsSurviveTheLog(t *testing.T) {
	codec := eventstore.NewJSONCodec(browserdom.Events()...)
	names := map[string]domain.Event{
		"browser.session_started": started, "browser.session_stopped": stopped, "browser.session_reset": reset,
		"browser.cookies_captured": capture, "browser.control_handed_over": handed, "browser.control_taken_back": back,
	}
	if len(browserdom.Events()) != len(names) {
		t.Fatalf("Events() has %d types, want %d (add the new one here)", len(browserdom.Events()), len(names))
	}
	for name, ev := range names {
		typ, sv, data, err := codec.Encode(ev)
		if err != nil || typ != name || sv != 1 || !json.Valid(data) {
			t.Fatalf("%T: %q %d %v", ev, typ, sv, err)
		}
		got, err := codec.Decode(typ, sv, data)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(ev, got); diff != "" {
			t.Errorf("%s changed in the log:\n%s", name, diff)
		}
	}
	if browserdom.StreamName(user) != "browser-session-"+user.String() {
		t.Error("stream name")
	}
}
