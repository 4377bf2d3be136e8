package budget

import (
	"testing"
	"time"

	"github.com/google/uuid"
)

var org = Owner{Scope: "organization", ID: uuid.MustParse("22222222-2222-4222-8222-222222222222")}

func TestTokenBucket(t *testing.T) {
	now := time.Date(2026, 12, 7, 9, 0, 0, 0, time.UTC)
	var b Bucket
	for i := 0; i < 10; i++ {
		ev, _, _ := Charge(b, org, AllTools, 10, 0, now)
		if ev == nil {
			t.Fatalf("call %d of a full bucket of 10 refused", i+1)
		}
		b = EvolveBucket(b, ev)
	}
	ev, wait, why := Charge(b, org, AllTools, 10, 0, now)
	if ev != nil || wait != 6*time.Second || why != "10 calls a minute" {
		t.Fatalf("the 11th call: %v, wait %v, %q; want refused for 6 s", ev, wait, why)
	}
	if ev, _, _ := Charge(b, org, AllTools, 10, 0, now.Add(6*time.Second)); ev == nil {
		t.Fatal("a token 6 s later refused")
	}
	// A refund gives the token back.
	b = EvolveBucket(b, Refunded{Owner: org, Tool: AllTools, PerMinute: 10, At: now})
	if ev, _, _ := Charge(b, org, AllTools, 10, 0, now); ev == nil || b.Count != 9 {
		t.Fatalf("after a refund: %v, count %d", ev, b.Count)
	}
}

func TestDailyBudget(t *testing.T) {
	now := time.Date(2026, 12, 7, 23, 0, 0, 0, time.UTC)
	var b Bucket
	for i := 0; i < 3; i++ {
		ev, _, _ := Charge(b, org, "github_create_issue", 0, 3, now)
		if ev == nil {
			t.Fatalf("call %d of 3 refused", i+1)
		}
		b = EvolveBucket(b, ev)
	}
	if ev, wait, why := Charge(b, org, "github_create_issue", 0, 3, now); ev != nil || wait != time.Hour || why != "3 calls a day" {
		t.Fatalf("the 4th call: %v, %v, %q; want refused until midnight UTC", ev, wait, why)
	}
	if CallsStreamName(org, "github_create_issue", Day(now)) != "budgetcalls-organization-22222222-2222-4222-8222-222222222222-github_create_issue-2026-12-07" {
		t.Fatal(CallsStreamName(org, "github_create_issue", Day(now)))
	}
	if _, err := SetCommand(Set{Owner: Owner{Scope: "platform"}, Tool: AllTools, PerMinute: 1, At: now}); err == nil {
		t.Fatal("a budget at the platform accepted")
	}
	if _, err := SetCommand(Set{Owner: org, Tool: AllTools, PerMinute: -1, At: now}); err == nil {
		t.Fatal("a negative limit accepted")
	}
}
