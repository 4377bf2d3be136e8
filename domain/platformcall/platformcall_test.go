package platformcall

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

func TestCountUpToTheCap(t *testing.T) {
	at := time.Date(2026, 12, 31, 23, 59, 0, 0, time.UTC)
	c := Count{OrgID: uuid.New(), ServerID: "mcp_brave", Slug: "brave", Capped: true, Cap: 2, At: at}
	s := Initial()
	for i := 1; i <= 2; i++ {
		evs, err := Decide(s, c)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		ev := evs[0].(Counted)
		if ev.Count != i || ev.Month != "2026-12" {
			t.Fatalf("call %d: %+v", i, ev)
		}
		s = Evolve(s, ev)
	}
	_, err := Decide(s, c)
	if domain.ErrorCode(err) != domain.CodeConflict || domain.ErrorMessage(err) != "ERROR: platform limit reached: brave calls this month" {
		t.Fatalf("third call: %v", err)
	}
	// Uncapped counts on.
	c.Capped = false
	if _, err := Decide(s, c); err != nil {
		t.Fatal(err)
	}
}
