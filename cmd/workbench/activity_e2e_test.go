package main

// The Activity API over real HTTP on a served Workbench, on SQLite and PostgreSQL: a signed-in user's
// list, chart, names and records hold their own records only (another user's record is not found),
// the chart's counts and percentiles are those of the known data, every bad parameter is a 400 that
// names it, and no session is a 401.

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/approval"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

func TestActivityAPISQLite(t *testing.T) {
	t.Parallel()
	runActivityAPI(t, filepath.Join(t.TempDir(), "wb.db"))
}

func TestActivityAPIPostgres(t *testing.T) {
	t.Parallel()
	runActivityAPI(t, testenv.PostgresURL(t))
}

// seedRun appends one tool run and returns the event id of its record.
func seedRun(t *testing.T, srv *e2eServer, ev execution.ToolExecuted, args string) (uuid.UUID, eventstore.Position) {
	t.Helper()
	return seedTracedRun(t, srv, ev, args, "")
}

// seedTracedRun is seedRun with the trace id the record's metadata names. A run seeded without one may
// still get a trace id: the store traces its appends once any test in the process has turned
// OpenTelemetry on (its tracer provider is global).
func seedTracedRun(t *testing.T, srv *e2eServer, ev execution.ToolExecuted, args, traceID string) (uuid.UUID, eventstore.Position) {
	t.Helper()
	if ev.ExecutionID == uuid.Nil {
		ev.ExecutionID = uuid.New()
	}
	ev.Success = ev.ErrorCode == ""
	ev.ArgsSize, ev.ArgsSHA256 = execution.Digest([]byte(args))
	if ev.Success {
		ev.ResultSize, ev.ResultSHA256 = execution.Digest([]byte(`{"ok":true}`))
	}
	pos, err := audittest.AppendTracedToolRun(context.Background(), srv.M.Store, ev, traceID)
	if err != nil {
		t.Fatal(err)
	}
	return uuid.NewSHA1(uuid.NameSpaceOID, ev.ExecutionID[:]), pos
}

func runActivityAPI(t *testing.T, databaseURL string) {
	srv := startE2E(t, databaseURL, nil, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	bob := srv.user(t, "bob@example.com")
	signedIn(t, srv, ada)
	signedIn(t, srv, bob)
	now := time.Now().UTC().Truncate(time.Second)
	run := func(user e2eUser, integration, code string, ms int64, ago time.Duration) (uuid.UUID, eventstore.Position) {
		return seedRun(t, srv, execution.ToolExecuted{UserID: user.ID, Via: "api_key", ClientID: user.KeyID.String(),
			Integration: integration, Tool: integration + "_tool", ErrorCode: code, DurationMS: ms, At: now.Add(-ago)}, `{"q":"x"}`)
	}
	adaRun, _ := run(ada, "github", "", 10, time.Hour)
	run(ada, "github", "", 20, 2*time.Hour)
	run(ada, "github", "TOOL_ERROR", 40, 3*time.Hour)
	run(ada, "slack", "TOOL_OFF", 0, 4*time.Hour)
	run(ada, "slack", "", 30, 50*time.Hour)
	bobRun, _ := run(bob, "bobsecret", "", 999, time.Hour)
	// A call held for approval and denied: the approval's requested and denied events, then the run.
	approvalID := uuid.New()
	codec := eventstore.NewJSONCodec(approval.Events()...)
	var appended []eventstore.EventData
	for _, ev := range []domain.Event{
		approval.Requested{ApprovalID: approvalID, Binding: approval.Binding{UserID: ada.ID, Tool: "github_tool", Integration: "github", ArgsSHA256: "ab"},
			ExpiresAt: now.Add(time.Hour), At: now.Add(-6 * time.Minute)},
		approval.Denied{ApprovalID: approvalID, UserID: ada.ID, Tool: "github_tool", Integration: "github", By: ada.ID, Via: "portal", At: now.Add(-5 * time.Minute)},
	} {
		typ, sv, data, err := codec.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		appended = append(appended, eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: sv, Data: data,
			Metadata: eventstore.Metadata{Actor: ada.ID.String(), Time: now.Add(-5 * time.Minute)}})
	}
	if _, err := srv.M.Store.Append(context.Background(), approval.StreamName(approvalID), eventstore.NoStream, appended...); err != nil {
		t.Fatal(err)
	}
	deniedRun, last := seedRun(t, srv, execution.ToolExecuted{UserID: ada.ID, Via: "api_key", ClientID: ada.KeyID.String(), ApprovalID: approvalID,
		Integration: "github", Tool: "github_tool", ErrorCode: "APPROVAL_DENIED", At: now.Add(-4 * time.Minute)}, `{}`)
	srv.waitFor(t, last)

	client := &http.Client{Timeout: 20 * time.Second}
	get := func(user *e2eUser, path string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.Base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if user != nil {
			c, err := srv.M.Sessions.Cookie(user.ID)
			if err != nil {
				t.Fatal(err)
			}
			req.AddCookie(c)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var body map[string]any
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
		return resp.StatusCode, body
	}

	t.Run("the list holds the user's own records only", func(t *testing.T) {
		status, body := get(&ada, "/api/activity?limit=200")
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, body)
		}
		tools := 0
		for _, r := range body["records"].([]any) {
			rec := r.(map[string]any)
			if rec["user_id"] != ada.ID.String() {
				t.Fatalf("ada's list holds %v", rec)
			}
			if rec["kind"] == "tool_executed" {
				tools++
			}
		}
		if tools != 6 {
			t.Errorf("%d tool runs listed, want 6", tools)
		}
		_, body = get(&ada, "/api/activity?outcome=refused")
		if recs := body["records"].([]any); len(recs) != 2 || recs[1].(map[string]any)["error_code"] != "TOOL_OFF" || recs[1].(map[string]any)["outcome"] != "refused" {
			t.Errorf("refused: %v", recs)
		}
		_, body = get(&ada, "/api/activity?integration=bobsecret")
		if recs := body["records"].([]any); len(recs) != 0 {
			t.Errorf("ada sees bob's integration: %v", recs)
		}
	})

	t.Run("the chart counts and percentiles", func(t *testing.T) {
		status, body := get(&ada, "/api/activity/summary")
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, body)
		}
		tot := body["totals"].(map[string]any)
		// Ran: 10 20 40 30 (the TOOL_OFF and the denied call never ran): p50 is the 2nd of 4 (20), p95 the 4th (40).
		if tot["calls"] != 6.0 || tot["errors"] != 1.0 || tot["refused"] != 2.0 || tot["p50_ms"] != 20.0 || tot["p95_ms"] != 40.0 {
			t.Errorf("totals %v", tot)
		}
		if n := len(body["days"].([]any)); n != 14 {
			t.Errorf("%d days, want 14", n)
		}
		hourly := 0.0
		for _, h := range body["hours"].([]any) {
			hourly += h.(map[string]any)["calls"].(float64)
		}
		if hourly != 5 {
			t.Errorf("%v calls in the last 24 hours, want 5", hourly)
		}
		for _, g := range body["groups"].([]any) {
			if g.(map[string]any)["key"] == "bobsecret" {
				t.Fatal("ada's chart counts bob's calls")
			}
		}
		_, body = get(&ada, "/api/activity/summary?group_by=agent")
		if gs := body["groups"].([]any); len(gs) != 1 || gs[0].(map[string]any)["calls"] != 6.0 {
			t.Errorf("by agent: %v", gs)
		}
	})

	t.Run("a record opens for its user only", func(t *testing.T) {
		status, body := get(&ada, "/api/activity/"+adaRun.String())
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, body)
		}
		rec := body["record"].(map[string]any)
		if rec["tool"] != "github_tool" || rec["args_size"] != 9.0 || rec["outcome"] != "ok" {
			t.Errorf("record %v", rec)
		}
		status, body = get(&ada, "/api/activity/"+deniedRun.String())
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, body)
		}
		a, _ := body["approval"].(map[string]any)
		if a == nil || a["id"] != approvalID.String() || a["state"] != "denied" || len(a["steps"].([]any)) != 2 || body["record"].(map[string]any)["outcome"] != "refused" {
			t.Errorf("the denied call's approval: %v", body)
		}
		if status, body := get(&ada, "/api/activity/"+bobRun.String()); status != http.StatusNotFound {
			t.Errorf("ada opened bob's record: %d %v", status, body)
		}
		if status, _ := get(&bob, "/api/activity/"+bobRun.String()); status != http.StatusOK {
			t.Errorf("bob cannot open his own record: %d", status)
		}
	})

	t.Run("names", func(t *testing.T) {
		status, body := get(&ada, "/api/activity/names")
		if status != http.StatusOK {
			t.Fatalf("%d %v", status, body)
		}
		keys := body["keys"].([]any)
		if len(keys) != 1 || keys[0].(map[string]any)["id"] != ada.KeyID.String() || !strings.HasPrefix(ada.Key, strings.TrimSuffix(keys[0].(map[string]any)["prefix"].(string), "…")) {
			t.Errorf("keys %v", keys)
		}
		if agents := body["agents"].([]any); len(agents) == 0 {
			t.Error("no agents named")
		}
	})

	t.Run("the credentials list is the auditors' only", func(t *testing.T) {
		// ada is a plain member: the list of every user's keys, clients and agents is not hers to read.
		if status, body := get(&ada, "/api/admin/audit/credentials"); status != http.StatusForbidden {
			t.Errorf("a plain member read the credentials list: %d %v", status, body)
		}
		if status, _ := get(nil, "/api/admin/audit/credentials"); status != http.StatusUnauthorized {
			t.Errorf("no session: %d, want 401", status)
		}
	})

	t.Run("bad parameters are 400, no session 401", func(t *testing.T) {
		for _, path := range []string{
			"/api/activity?limit=0", "/api/activity?limit=201", "/api/activity?limit=x", "/api/activity?before=nope",
			"/api/activity?agent=nope", "/api/activity?outcome=maybe", "/api/activity?from=yesterday", "/api/activity?color=red",
			"/api/activity?outcome=ok&outcome=error", "/api/activity?account=Bad.Label", "/api/activity?group_by=agent",
			"/api/activity/summary?from=2026-01-01&to=2026-06-01", "/api/activity/summary?group_by=tool",
			"/api/activity/summary?from=2026-02-01&to=2026-01-01", "/api/activity/summary?limit=5",
			"/api/activity/not-a-uuid", "/api/activity/names?x=1",
		} {
			status, body := get(&ada, path)
			if status != http.StatusBadRequest || body["message"] == "" {
				t.Errorf("%s: %d %v, want 400 with a message", path, status, body)
			}
		}
		for _, path := range []string{"/api/activity", "/api/activity/summary", "/api/activity/names", "/api/activity/" + adaRun.String()} {
			if status, _ := get(nil, path); status != http.StatusUnauthorized {
				t.Errorf("%s without a session: %d, want 401", path, status)
			}
		}
	})
}
