package auditrm_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

func TestPercentileNearestRank(t *testing.T) {
	ten := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	for _, c := range []struct {
		name   string
		values []int64
		p      float64
		want   int64
	}{
		{"median of ten is the fifth", ten, 50, 50},
		{"p95 of ten is the tenth", ten, 95, 100},
		{"p90 of ten is the ninth", ten, 90, 90},
		{"one value", []int64{7}, 50, 7},
		{"one value p95", []int64{7}, 95, 7},
		{"median of three", []int64{1, 2, 300}, 50, 2},
		{"p95 of twenty is the nineteenth", []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, 95, 19},
		{"p50 of four is the second", []int64{5, 6, 7, 8}, 50, 6},
	} {
		got := auditrm.Percentile(c.values, c.p)
		if got == nil || *got != c.want {
			t.Errorf("%s: got %v, want %d", c.name, deref(got), c.want)
		}
	}
	if auditrm.Percentile(nil, 50) != nil {
		t.Error("the percentile of nothing is not nil")
	}
}

// run is a tool_executed record for Summarize.
func run(user uuid.UUID, integration, code string, ms int64, at time.Time) auditrm.Record {
	ok := code == ""
	return auditrm.Record{Kind: auditrm.KindToolExecuted, UserID: user, Integration: integration, Tool: integration + "_tool",
		Success: &ok, ErrorCode: code, DurationMS: &ms, Time: at}
}

func TestSummarizeBucketsAndPercentiles(t *testing.T) {
	user := uuid.New()
	agent := uuid.New()
	from := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	to := from.Add(3 * 24 * time.Hour)
	now := to.Add(-90 * time.Minute) // 22:30 on the last day
	recs := []auditrm.Record{
		run(user, "github", "", 10, from.Add(time.Hour)),
		run(user, "github", "", 30, from.Add(2*time.Hour)),
		run(user, "github", "TOOL_ERROR", 50, from.Add(25*time.Hour)),
		run(user, "slack", "APPROVAL_REQUIRED", 0, from.Add(26*time.Hour)), // refused: no latency
		run(user, "slack", "", 20, now.Add(-30*time.Minute)),               // last day, 22:00 hour
		run(user, "slack", "", 40, now.Add(-30*time.Hour)),                 // outside the last 24 hours
	}
	recs[4].AgentID = agent
	s := auditrm.Summarize(auditrm.ActivityQuery{User: user, DefaultAgent: uuid.Nil, From: from, To: to}, recs, now)
	if len(s.Days) != 3 || len(s.Hours) != 24 {
		t.Fatalf("%d days, %d hours; want 3 and 24", len(s.Days), len(s.Hours))
	}
	if calls := [3]int{s.Days[0].Calls, s.Days[1].Calls, s.Days[2].Calls}; calls != [3]int{2, 3, 1} {
		t.Errorf("calls per day %v, want [2 3 1]", calls)
	}
	if s.Days[1].Errors != 1 || s.Days[1].Refused != 1 || s.Days[1].Groups["github"] != 1 || s.Days[1].Groups["slack"] != 2 {
		t.Errorf("day 2: %+v", s.Days[1])
	}
	tot := s.Totals
	// Ran (ok or error): 10, 30, 50, 20, 40 → sorted 10 20 30 40 50: p50 the 3rd, p95 the 5th.
	if tot.Calls != 6 || tot.Errors != 1 || tot.Refused != 1 || tot.P50MS == nil || *tot.P50MS != 30 || *tot.P95MS != 50 {
		t.Errorf("totals %+v (p50 %v p95 %v)", tot, deref(tot.P50MS), deref(tot.P95MS))
	}
	if last := s.Hours[23]; !last.Start.Equal(time.Date(2026, 3, 3, 22, 0, 0, 0, time.UTC)) || last.Calls != 1 {
		t.Errorf("last hour %v with %d calls, want 22:00 on 3 March with 1", last.Start, last.Calls)
	}
	hourly := 0
	for _, h := range s.Hours {
		hourly += h.Calls
	}
	if hourly != 1 {
		t.Errorf("%d calls in the last 24 hours, want 1", hourly)
	}
	if len(s.Groups) != 2 || s.Groups[0].Key != "github" || s.Groups[0].Calls != 3 || *s.Groups[0].P95MS != 50 {
		t.Errorf("groups %+v", s.Groups)
	}
	if slack := s.Groups[1]; slack.Refused != 1 || *slack.P50MS != 20 || *slack.P95MS != 40 {
		t.Errorf("slack %+v", slack)
	}

	byAgent := auditrm.Summarize(auditrm.ActivityQuery{User: user, DefaultAgent: uuid.Nil, From: from, To: to, GroupBy: "agent"}, recs, now)
	keys := map[string]int{}
	for _, g := range byAgent.Groups {
		keys[g.Key] = g.Calls
	}
	if keys[agent.String()] != 1 || keys[uuid.Nil.String()] != 5 {
		t.Errorf("by agent %v", keys)
	}
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestActivityQueryValidate(t *testing.T) {
	user := uuid.New()
	for _, c := range []struct {
		name string
		q    auditrm.ActivityQuery
	}{
		{"no user", auditrm.ActivityQuery{}},
		{"bad outcome", auditrm.ActivityQuery{User: user, Outcome: "maybe"}},
		{"bad grouping", auditrm.ActivityQuery{User: user, GroupBy: "tool"}},
		{"empty range", auditrm.ActivityQuery{User: user, From: time.Unix(10, 0), To: time.Unix(10, 0)}},
	} {
		if err := c.q.Validate(); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	q := auditrm.ActivityQuery{User: user, Outcome: "TOOL_OFF"}
	if err := q.Validate(); err != nil || q.GroupBy != "integration" {
		t.Errorf("a code: %v, group by %q", err, q.GroupBy)
	}
}

// TestActivityScopeAndFilters writes two users' tool runs and reads the read model on every backend:
// one user's list, chart and records never include the other's, and each filter keeps what it names.
func TestActivityScopeAndFilters(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		runner := b.running(t)
		ada, bob := uuid.New(), uuid.New()
		agent := uuid.New()
		now := time.Now().UTC().Truncate(time.Second)
		var last eventstore.Position
		var adaRun, bobRun uuid.UUID
		write := func(user uuid.UUID, integration, code string, ms int64, ago time.Duration, agentID uuid.UUID) uuid.UUID {
			ev := execution.ToolExecuted{ExecutionID: uuid.New(), UserID: user, Via: "api_key", ClientID: "k", AgentID: agentID,
				Integration: integration, Tool: integration + "_tool", Success: code == "", ErrorCode: code, DurationMS: ms, At: now.Add(-ago)}
			ev.ArgsSize, ev.ArgsSHA256 = execution.Digest([]byte(`{}`))
			pos, err := audittest.AppendToolRun(ctx, b.store, ev)
			if err != nil {
				t.Fatal(err)
			}
			last = pos
			return uuid.NewSHA1(uuid.NameSpaceOID, ev.ExecutionID[:])
		}
		adaRun = write(ada, "github", "", 10, time.Hour, uuid.Nil)
		write(ada, "github", "TOOL_ERROR", 20, 2*time.Hour, uuid.Nil)
		write(ada, "slack", "TOOL_OFF", 0, 3*time.Hour, agent)
		write(ada, "slack", "", 30, 50*time.Hour, agent)
		bobRun = write(bob, "github", "", 99, time.Hour, uuid.Nil)
		if err := runner.WaitFor(ctx, last); err != nil {
			t.Fatal(err)
		}
		reader := auditrm.Reader{DB: b.db}
		list := func(q auditrm.ActivityQuery) int {
			t.Helper()
			q.User = ada
			recs, _, err := reader.ActivityList(ctx, q, eventstore.Start, 50)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				if r.UserID != ada {
					t.Fatalf("ada's list holds a record of %s", r.UserID)
				}
			}
			return len(recs)
		}
		for _, c := range []struct {
			name string
			q    auditrm.ActivityQuery
			want int
		}{
			{"all", auditrm.ActivityQuery{}, 4},
			{"integration", auditrm.ActivityQuery{Integration: "slack"}, 2},
			{"agent", auditrm.ActivityQuery{Agent: agent}, 2},
			{"ok", auditrm.ActivityQuery{Outcome: "ok"}, 2},
			{"error", auditrm.ActivityQuery{Outcome: "error"}, 1},
			{"refused", auditrm.ActivityQuery{Outcome: "refused"}, 1},
			{"a code", auditrm.ActivityQuery{Outcome: "TOOL_ERROR"}, 1},
			{"range", auditrm.ActivityQuery{From: now.Add(-24 * time.Hour)}, 3},
			{"account", auditrm.ActivityQuery{Account: "work"}, 0},
		} {
			if got := list(c.q); got != c.want {
				t.Errorf("%s: %d records, want %d", c.name, got, c.want)
			}
		}
		// Paging two at a time gives every record once, newest first, and ends.
		var paged []auditrm.Record
		before := eventstore.Start
		for pages := 0; ; pages++ {
			page, next, err := reader.ActivityList(ctx, auditrm.ActivityQuery{User: ada}, before, 2)
			if err != nil {
				t.Fatal(err)
			}
			paged = append(paged, page...)
			if next.IsZero() {
				break
			}
			before = next
			if pages > 5 {
				t.Fatal("paging does not end")
			}
		}
		if len(paged) != 4 {
			t.Fatalf("%d records paged, want 4", len(paged))
		}
		for i := 1; i < len(paged); i++ {
			if !paged[i].Position.Less(paged[i-1].Position) {
				t.Fatalf("not newest first at %d", i)
			}
		}
		s, err := reader.Activity(ctx, auditrm.ActivityQuery{User: ada, From: now.Add(-7 * 24 * time.Hour), To: now.Add(time.Hour)}, now)
		if err != nil {
			t.Fatal(err)
		}
		if s.Totals.Calls != 4 || s.Totals.Errors != 1 || s.Totals.Refused != 1 || *s.Totals.P95MS != 30 {
			t.Errorf("ada's totals %+v", s.Totals)
		}
		if _, err := reader.Activity(ctx, auditrm.ActivityQuery{User: ada, From: now.Add(-100 * 24 * time.Hour), To: now}, now); err == nil {
			t.Error("a 100-day range was read")
		}
		if _, err := reader.ActivityRecord(ctx, ada, adaRun); err != nil {
			t.Errorf("ada's own record: %v", err)
		}
		if _, err := reader.ActivityRecord(ctx, ada, bobRun); err == nil {
			t.Error("ada read bob's record")
		}
	})
}
