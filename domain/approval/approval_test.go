package approval

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

var (
	at   = time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	user = uuid.MustParse("11111111-1111-4111-8111-111111111111")
	bind = Binding{UserID: user, Tool: "github_delete_repo", Integration: "github", ArgsSHA256: "abc"}
)

func apply(t *testing.T, s State, c Command) State {
	t.Helper()
	evs, err := Decide(s, c)
	if err != nil {
		t.Fatalf("%T: %v", c, err)
	}
	for _, e := range evs {
		s = Evolve(s, e)
	}
	return s
}

func requested(t *testing.T) State {
	return apply(t, Initial(), Request{Event: Requested{ApprovalID: uuid.New(), Binding: bind, ExpiresAt: at.Add(DefaultTTL), At: at}})
}

func TestApprovedRunsOnce(t *testing.T) {
	s := requested(t)
	if _, err := Decide(s, Use{Binding: bind, ExecutionID: uuid.New(), At: at}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("use before a decision: %v", err)
	}
	s = apply(t, s, Approve{By: user, Via: ViaPortal, At: at.Add(time.Minute)})
	if _, err := Decide(s, Deny{By: user, Via: ViaPortal, At: at.Add(time.Minute)}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("deny after approve: %v", err)
	}
	other := bind
	other.ArgsSHA256 = "changed"
	if _, err := Decide(s, Use{Binding: other, ExecutionID: uuid.New(), At: at.Add(2 * time.Minute)}); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("use with changed arguments: %v", err)
	}
	for _, f := range []func(*Binding){func(b *Binding) { b.Account = "work" }, func(b *Binding) { b.AgentID = uuid.New() }, func(b *Binding) { b.Tool = "github_list_repos" }} {
		b := bind
		f(&b)
		if _, err := Decide(s, Use{Binding: b, ExecutionID: uuid.New(), At: at.Add(2 * time.Minute)}); domain.ErrorCode(err) != domain.CodeInvalid {
			t.Fatalf("use for %+v: %v", b, err)
		}
	}
	s = apply(t, s, Use{Binding: bind, ExecutionID: uuid.New(), At: at.Add(2 * time.Minute)})
	if _, err := Decide(s, Use{Binding: bind, ExecutionID: uuid.New(), At: at.Add(3 * time.Minute)}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("a replayed approval: %v", err)
	}
}

func TestApprovalExpires(t *testing.T) {
	s := requested(t)
	late := at.Add(DefaultTTL)
	if _, err := Decide(s, Approve{By: user, Via: ViaPortal, At: late}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("approve after the expiry: %v", err)
	}
	if evs, _ := Decide(s, Expire{At: late.Add(-time.Second)}); len(evs) != 0 {
		t.Fatal("expired before its time")
	}
	s = apply(t, s, Expire{At: late})
	if s.Status != StatusExpired {
		t.Fatalf("status %s", s.Status)
	}
	if evs, _ := Decide(s, Expire{At: late}); len(evs) != 0 {
		t.Fatal("expired twice")
	}
	// An approved approval nobody used in time expires too.
	s = apply(t, requested(t), Approve{By: user, Via: ViaElicitation, At: at})
	if _, err := Decide(s, Use{Binding: bind, ExecutionID: uuid.New(), At: late}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("use after the expiry: %v", err)
	}
}

func TestDenied(t *testing.T) {
	s := apply(t, requested(t), Deny{By: user, Via: ViaElicitation, At: at})
	if s.Status != StatusDenied || s.Via != ViaElicitation {
		t.Fatalf("%+v", s)
	}
	if _, err := Decide(s, Use{Binding: bind, ExecutionID: uuid.New(), At: at}); domain.ErrorCode(err) != domain.CodeConflict {
		t.Fatalf("use of a denied approval: %v", err)
	}
	if _, err := Decide(Initial(), Approve{By: user, Via: ViaPortal, At: at}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("approve nothing: %v", err)
	}
}
