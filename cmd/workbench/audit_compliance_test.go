package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/auditsink"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// TestAuditComplianceCommands: `audit asof`, `audit blast-radius`, `audit what-if` and `audit auditor` on the audittest
// log, each read recorded in the log as an audit read by the command line.
func TestAuditComplianceCommands(t *testing.T) {
	t.Parallel()
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
	var asof auditrm.AsOfResult
	if err := json.Unmarshal([]byte(runOK("audit", "asof", "2025-03-03T11:00:00Z")), &asof); err != nil || len(asof.Holdings) != 2 {
		t.Fatalf("asof: %+v %v", asof, err)
	}
	if err := json.Unmarshal([]byte(runOK("audit", "asof", "2025-03-02", "--user", "ada@example.com")), &asof); err != nil ||
		len(asof.Holdings) != 1 || asof.Holdings[0].Generation != 2 || asof.Holdings[0].Status != "connected" {
		t.Fatalf("asof ada: %+v %v", asof, err)
	}
	var rep auditrm.BlastReport
	if err := json.Unmarshal([]byte(runOK("audit", "blast-radius", "--api-key", audittest.AdaKey1.String())), &rep); err != nil || rep.Totals.ToolRuns != 5 {
		t.Fatalf("blast radius: %+v %v", rep.Totals, err)
	}
	if html := runOK("audit", "blast-radius", "--api-key", audittest.AdaKey1.String(), "--format", "html"); !strings.Contains(html, "<!doctype html>") ||
		!strings.Contains(html, "github_create_issue") {
		t.Fatalf("html: %.200s", html)
	}
	rep = auditrm.BlastReport{}
	if err := json.Unmarshal([]byte(runOK("audit", "blast-radius", "--agent", identitydom.DefaultAgentID(audittest.Ada).String())), &rep); err != nil ||
		rep.Kind != auditrm.CredentialAgent || rep.Totals.ToolRuns != 5 {
		t.Fatalf("blast radius of ada's default agent: %+v %v", rep.Totals, err)
	}
	var wi auditrm.WhatIfReport
	sw := "agent:" + identitydom.DefaultAgentID(audittest.Ada).String() + ":github_list_repos=off"
	if err := json.Unmarshal([]byte(runOK("audit", "what-if", "--switch", sw, "--switch", "platform:utils_uuid=off", "--days", "3")), &wi); err != nil ||
		len(wi.Switches) != 2 || wi.Switches[0] != sw || wi.Until.Sub(wi.Since) != 72*time.Hour {
		t.Fatalf("what-if: %+v %v", wi, err)
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
		{"audit", "what-if"}, {"audit", "what-if", "--switch", "team:x=off"}, {"audit", "what-if", "--switch", "platform:x=off", "--days", "0"},
	} {
		var errOut bytes.Buffer
		if err := run(ctx, bad, envFunc(env), &bytes.Buffer{}, &errOut); !errors.Is(err, errUsage) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	// The reads are in the log, and in the records a replay gives.
	out := runOK("audit", "replay")
	if n := strings.Count(out, `"kind":"audit_read"`); n != 6 {
		t.Errorf("%d audit_read records in the replay, want 6 (two asof, three blast-radius, one what-if)", n)
	}
	if !strings.Contains(out, `"kind":"auditor_granted"`) || !strings.Contains(out, `"kind":"auditor_revoked"`) {
		t.Error("the role changes are not in the replay")
	}
}

// TestServeAuditSink: with AUDIT_SINK_URL set, the server delivers its audit records to the webhook,
// signed, and /metrics reports workbench_audit_sink_lag.
func TestServeAuditSink(t *testing.T) {
	t.Parallel()
	secret := "a-sink-secret-of-more-than-16"
	got := make(chan auditsink.Batch, 100)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if err := auditsink.Verify([]byte(secret), r.Header.Get(auditsink.HeaderSignature), body, time.Now(), time.Minute); err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		var b auditsink.Batch
		if err := json.Unmarshal(body, &b); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- b
	}))
	defer recv.Close()
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), map[string]string{
		"AUDIT_SINK_URL": recv.URL + "/siem", "AUDIT_SINK_SECRET": secret, "WORKBENCH_DEV_ALLOW_LOOPBACK": "true",
		"AUDIT_SINK_RETRY_MIN_SECONDS": "1",
	}, slog.LevelWarn)
	u := srv.user(t, "ada@example.com")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for found := false; !found; {
		select {
		case b := <-got:
			for _, r := range b.Records {
				found = found || (r.Kind == auditrm.KindAPIKeyMinted && r.KeyID == u.KeyID && r.Email == "ada@example.com")
			}
		case <-ctx.Done():
			t.Fatal("the key's record never reached the sink")
		}
	}
	resp, err := http.Get(srv.Base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `workbench_audit_sink_lag{sink="webhook"}`) {
		t.Fatalf("/metrics has no sink lag:\n%.2000s", body)
	}
}
