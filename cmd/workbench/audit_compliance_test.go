package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/workbench/workbench/projections/audit"
	"github.com/workbench/workbench/projections/audit/audittest"
)

// TestAuditComplianceCommands: `audit asof`, `audit blast-radius` and `audit auditor` on the audittest
// log, each read recorded in the log as an audit read by the command line.
func TestAuditComplianceCommands(t *testing.T) {
	env, m := auditEnv(t, 0)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	runOK := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		if err := run(ctx, args, envFunc(env), &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, errOut.String())
		}
		return out.String()
	}
	var asof audit.AsOfResult
	if err := json.Unmarshal([]byte(runOK("audit", "asof", "2025-03-03T11:00:00Z")), &asof); err != nil || len(asof.Holdings) != 2 {
		t.Fatalf("asof: %+v %v", asof, err)
	}
	if err := json.Unmarshal([]byte(runOK("audit", "asof", "2025-03-02", "--user", "ada@example.com")), &asof); err != nil ||
		len(asof.Holdings) != 1 || asof.Holdings[0].Generation != 2 || asof.Holdings[0].Status != "connected" {
		t.Fatalf("asof ada: %+v %v", asof, err)
	}
	var rep audit.BlastReport
	if err := json.Unmarshal([]byte(runOK("audit", "blast-radius", "--api-key", audittest.AdaKey1.String())), &rep); err != nil || rep.Totals.ToolRuns != 5 {
		t.Fatalf("blast radius: %+v %v", rep.Totals, err)
	}
	if html := runOK("audit", "blast-radius", "--api-key", audittest.AdaKey1.String(), "--format", "html"); !strings.Contains(html, "<!doctype html>") ||
		!strings.Contains(html, "github_create_issue") {
		t.Fatalf("html: %.200s", html)
	}
	if out := runOK("audit", "auditor", "grant", "--email", "eve@example.com"); !strings.Contains(out, "granted for eve@example.com") {
		t.Fatalf("grant: %q", out)
	}
	if out := runOK("audit", "auditor", "revoke", "--email", "eve@example.com"); !strings.Contains(out, "revoked for eve@example.com") {
		t.Fatalf("revoke: %q", out)
	}
	for _, bad := range [][]string{
		{"audit", "asof"}, {"audit", "asof", "yesterday"}, {"audit", "blast-radius"}, {"audit", "blast-radius", "--agent", "x"},
		{"audit", "blast-radius", "--api-key", "x", "--session", "y"}, {"audit", "auditor", "promote", "--email", "a@example.com"},
	} {
		var errOut bytes.Buffer
		if err := run(ctx, bad, envFunc(env), &bytes.Buffer{}, &errOut); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	// The reads are in the log, and in the records a replay gives.
	out := runOK("audit", "replay")
	if n := strings.Count(out, `"kind":"audit_read"`); n != 4 {
		t.Errorf("%d audit_read records in the replay, want 4 (two asof, two blast-radius)", n)
	}
	if !strings.Contains(out, `"kind":"auditor_granted"`) || !strings.Contains(out, `"kind":"auditor_revoked"`) {
		t.Error("the role changes are not in the replay")
	}
}
