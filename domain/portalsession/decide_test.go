package portalsession_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/portalsession"
)

var (
	ada   = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	bob   = uuid.MustParse("22222222-2222-4222-8222-222222222222")
	s1    = uuid.MustParse("a1a1a1a1-0000-4000-8000-000000000001")
	s2    = uuid.MustParse("a2a2a2a2-0000-4000-8000-000000000002")
	t0    = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) // s1 and s2 are issued
	exp   = t0.Add(12 * time.Hour)                      // and would lapse
	tOut  = t0.Add(time.Hour)                           // a sign-out
	tAll  = t0.Add(2 * time.Hour)                       // a sign-out everywhere
	tNew  = tAll.Add(time.Nanosecond)                   // a session issued just after it
	tLate = tAll.Add(time.Hour)

	endedS1 = portalsession.SessionEnded{UserID: ada, SessionID: s1, ExpiresAt: exp, At: tOut}
	allAt   = portalsession.AllSessionsEnded{UserID: ada, At: tAll}
)

func fold(history []domain.Event) portalsession.State {
	s := portalsession.Initial()
	for _, ev := range history {
		s = portalsession.Evolve(s, ev)
	}
	return s
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name    string
		given   []domain.Event
		when    portalsession.Command
		then    []domain.Event
		code    domain.Code // a refusal
		endedS1 bool        // is s1 (issued t0) over afterwards
		endedS2 bool        // is s2 (issued t0) over afterwards
	}{
		{name: "sign out ends that session only",
			when: portalsession.End{UserID: ada, SessionID: s1, IssuedAt: t0, ExpiresAt: exp, At: tOut},
			then: []domain.Event{endedS1}, endedS1: true},
		{name: "signing out twice records nothing", given: []domain.Event{endedS1},
			when:    portalsession.End{UserID: ada, SessionID: s1, IssuedAt: t0, ExpiresAt: exp, At: tLate},
			endedS1: true},
		{name: "a session already cut by sign-out everywhere records nothing", given: []domain.Event{allAt},
			when:    portalsession.End{UserID: ada, SessionID: s2, IssuedAt: t0, ExpiresAt: exp, At: tLate},
			endedS1: true, endedS2: true},
		{name: "a session issued after the cut can still be ended", given: []domain.Event{allAt},
			when:    portalsession.End{UserID: ada, SessionID: s2, IssuedAt: tNew, ExpiresAt: tNew.Add(time.Hour), At: tLate},
			then:    []domain.Event{portalsession.SessionEnded{UserID: ada, SessionID: s2, ExpiresAt: tNew.Add(time.Hour), At: tLate}},
			endedS1: true, endedS2: true},
		{name: "a lapsed session records nothing",
			when: portalsession.End{UserID: ada, SessionID: s1, IssuedAt: t0, ExpiresAt: exp, At: exp.Add(time.Second)}},
		{name: "sign out everywhere ends every earlier session", given: []domain.Event{endedS1},
			when: portalsession.EndAll{UserID: ada, At: tAll},
			then: []domain.Event{allAt}, endedS1: true, endedS2: true},
		{name: "an earlier sign out everywhere than the recorded one records nothing", given: []domain.Event{allAt},
			when: portalsession.EndAll{UserID: ada, At: tOut}, endedS1: true, endedS2: true},
		{name: "end without a session id", when: portalsession.End{UserID: ada, IssuedAt: t0, ExpiresAt: exp, At: tOut}, code: domain.CodeInvalid},
		{name: "end without a user", when: portalsession.End{SessionID: s1, IssuedAt: t0, ExpiresAt: exp, At: tOut}, code: domain.CodeInvalid},
		{name: "end without a time", when: portalsession.End{UserID: ada, SessionID: s1, IssuedAt: t0, ExpiresAt: exp}, code: domain.CodeInvalid},
		{name: "end with an expiry before the issue", when: portalsession.End{UserID: ada, SessionID: s1, IssuedAt: exp, ExpiresAt: t0, At: tOut}, code: domain.CodeInvalid},
		{name: "end for another user's stream", given: []domain.Event{endedS1},
			when: portalsession.End{UserID: bob, SessionID: s2, IssuedAt: t0, ExpiresAt: exp, At: tOut}, code: domain.CodeInvalid},
		{name: "end all without a time", when: portalsession.EndAll{UserID: ada}, code: domain.CodeInvalid},
		{name: "end all for another user's stream", given: []domain.Event{endedS1}, when: portalsession.EndAll{UserID: bob, At: tAll}, code: domain.CodeInvalid},
		{name: "no command", when: nil, code: domain.CodeInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fold(tt.given)
			got, err := portalsession.Decide(before, tt.when)
			if tt.code != "" {
				var de *domain.Error
				if !errors.As(err, &de) || de.Code != tt.code || de.Message == "" {
					t.Fatalf("Decide = %v, %v; want a *domain.Error with code %s and a message", got, err, tt.code)
				}
				if got != nil {
					t.Fatalf("a refused command emitted %v", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tt.then, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			after := fold(append(append([]domain.Event(nil), tt.given...), got...))
			if after.IsEnded(s1, t0) != tt.endedS1 || after.IsEnded(s2, t0) != tt.endedS2 {
				t.Errorf("after: s1 ended %v (want %v), s2 ended %v (want %v)", after.IsEnded(s1, t0), tt.endedS1, after.IsEnded(s2, t0), tt.endedS2)
			}
			if after.IsEnded(uuid.New(), tNew) {
				t.Error("a session issued after every cut, never ended, counts as ended")
			}
			if diff := cmp.Diff(before, fold(tt.given)); diff != "" {
				t.Errorf("Decide changed the state it was given (-before +after):\n%s", diff)
			}
		})
	}
}

func TestEvolveForgetsLapsedSessions(t *testing.T) {
	s := fold([]domain.Event{
		endedS1,
		portalsession.SessionEnded{UserID: ada, SessionID: s2, ExpiresAt: exp.Add(time.Hour), At: exp.Add(time.Minute)},
	})
	if _, ok := s.Ended[s1]; ok {
		t.Error("s1 lapsed before the second event and is still remembered")
	}
	if !s.IsEnded(s2, t0) {
		t.Error("s2 is not ended")
	}
}
