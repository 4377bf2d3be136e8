package main

// The Activity page in real headless Chromium: a user's tool runs (succeeded, failed, refused and one
// held while a person drove the browser) drawn as bars per day and per hour whose heights are the
// counts, the p50/p95 of the calls that ran, a filter that narrows chart and list, and a row's detail
// panel with the tool, agent, key, outcome code, timing and trace, and never the secret in the call's
// arguments. Another user's calls never appear.

import (
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/domain/execution"
)

func TestActivityPageInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelWarn)
	ada := srv.user(t, "ada@example.com")
	bob := srv.user(t, "bob@example.com")
	signedIn(t, srv, ada)
	now := time.Now().UTC().Truncate(time.Second)
	const secret = "sk-live-TOPSECRET42"
	type seed struct {
		integration, code, detail string
		ms                        int64
		ago                       time.Duration
	}
	seeds := []seed{
		{"github", "", "", 10, 10 * time.Minute},
		{"github", "", "", 20, 70 * time.Minute},
		{"github", "", "", 30, 130 * time.Minute},
		{"github", "INVALID_ARGUMENTS", "", 40, 190 * time.Minute},
		{"slack", "TOOL_OFF", "", 0, 250 * time.Minute},
		{"browser", "TOOL_ERROR", "HUMAN_IN_CONTROL", 0, 5 * time.Minute},
		{"slack", "", "", 50, 49 * time.Hour},
	}
	perDay := map[string]int{}
	// The run the detail panel opens names its trace (the others may or may not get one: the store
	// traces its appends once any test in this process has turned OpenTelemetry on).
	const traced = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, s := range seeds {
		at := now.Add(-s.ago)
		trace := ""
		if s.code == "INVALID_ARGUMENTS" {
			trace = traced
		}
		seedTracedRun(t, srv, execution.ToolExecuted{UserID: ada.ID, Via: "api_key", ClientID: ada.KeyID.String(),
			Integration: s.integration, Tool: s.integration + "_call", ErrorCode: s.code, ErrorDetail: s.detail, DurationMS: s.ms, At: at},
			`{"token":"`+secret+`","owner":"ada"}`, trace)
		perDay[at.Truncate(24*time.Hour).Format(time.RFC3339)]++
	}
	_, last := seedRun(t, srv, execution.ToolExecuted{UserID: bob.ID, Via: "api_key", ClientID: bob.KeyID.String(),
		Integration: "bobsecret", Tool: "bobsecret_call", DurationMS: 1, At: now.Add(-time.Minute)}, `{}`)
	srv.waitFor(t, last)
	// The read models are past signedIn's events now: ada's personal organisation and default agent.
	agents, err := srv.M.Organizations.Reader().AgentsOf(context.Background(), ada.ID)
	if err != nil || len(agents) == 0 {
		t.Fatalf("ada's agents once the read models caught up: %v %v", agents, err)
	}
	agentName := agents[0].Name

	tb := openTab(t, browser, srv.Base)
	tb.signIn(srv, ada.ID)

	// bars reads each bar of a chart: its bucket and its calls, and the sum of its segments' counts.
	type bar struct {
		Bucket   string `json:"bucket"`
		Calls    int    `json:"calls"`
		Segments int    `json:"segments"`
		Height   float64
	}
	bars := func(chart string) []bar {
		t.Helper()
		var out []bar
		js := `() => JSON.stringify([...document.querySelectorAll('[data-testid=` + chart + `] g.chart-bar')].map((g) => ({
			bucket: g.dataset.bucket, calls: Number(g.dataset.calls),
			segments: [...g.querySelectorAll('rect')].reduce((n, r) => n + Number(r.dataset.count), 0),
			Height: [...g.querySelectorAll('rect')].reduce((n, r) => n + r.getBBox().height, 0)})))`
		if err := json.Unmarshal([]byte(tb.eval(js)), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("the chart draws the counts", func(t *testing.T) {
		tb.t = t
		tb.open("/activity")
		tb.el(`[data-testid=chart-days]`, "")
		days := bars("chart-days")
		if len(days) != 14 {
			t.Fatalf("%d day bars, want 14", len(days))
		}
		got := map[string]int{}
		var tallest bar
		for _, b := range days {
			if b.Calls != b.Segments {
				t.Errorf("day %s: %d calls but segments of %d", b.Bucket, b.Calls, b.Segments)
			}
			if b.Calls > 0 {
				got[strings.Replace(b.Bucket, ".000", "", 1)] = b.Calls
			}
			if b.Calls > tallest.Calls {
				tallest = b
			}
		}
		if len(got) != len(perDay) {
			t.Errorf("days with calls %v, want %v", got, perDay)
		}
		for day, n := range perDay {
			if got[day] != n {
				t.Errorf("day %s: %d calls drawn, want %d (%v)", day, got[day], n, got)
			}
		}
		// A bar's height is proportional to its count.
		for _, b := range days {
			if b.Calls > 0 && b.Calls < tallest.Calls {
				ratio := b.Height / tallest.Height
				want := float64(b.Calls) / float64(tallest.Calls)
				if ratio < want-0.02 || ratio > want+0.02 {
					t.Errorf("day %s: height ratio %.3f, want %.3f", b.Bucket, ratio, want)
				}
			}
		}
		hourly := 0
		for _, b := range bars("chart-hours") {
			hourly += b.Calls
		}
		if hourly != 6 {
			t.Errorf("%d calls in the hourly chart, want 6", hourly)
		}
		// Ran: 10 20 30 40 50 (the refused and the held calls did not): p50 30, p95 50.
		tb.el(`[data-stat=calls] .stat-value`, `^7$`)
		tb.el(`[data-stat=p50] .stat-value`, `^30 ms$`)
		tb.el(`[data-stat=p95] .stat-value`, `^50 ms$`)
		tb.el(`[data-stat=refused] .stat-value`, `^2$`)
		if label := tb.eval(`() => document.querySelector('[data-testid=chart-days]').getAttribute('aria-label')`); !strings.Contains(label, "7 calls") {
			t.Errorf("the chart's accessible name %q does not say its total", label)
		}
		tb.el(`.chart-figure .sr-only table caption`, `per day`)
		tb.el(`.chart-legend li[data-series=github]`, "")
		if strings.Contains(tb.text(`main`), "bobsecret") {
			t.Error("ada's activity shows bob's calls")
		}
		// The held call reads as what it was, with its real code in its title, not "Failed: TOOL_ERROR · 0 ms".
		tb.el(`li.event[data-outcome=refused] .badge`, `a person is driving the browser`)
		tb.el(`li.event .muted.small`, regexp.QuoteMeta(agentName)+` · via API key wb_`)
		tb.shot("activity-chart")
	})

	t.Run("a filter narrows chart and list", func(t *testing.T) {
		tb.t = t
		if err := tb.el(`[data-testid=filter-outcome]`, "").Select([]string{"Refused or waiting"}, true, "text"); err != nil {
			t.Fatal(err)
		}
		tb.click(`[data-testid=activity-apply]`, "")
		tb.el(`[data-stat=calls] .stat-value`, `^2$`)
		waitRows(t, tb, `[data-testid=activity] li.event`, 2)
		if n := tb.eval(`() => String(document.querySelectorAll('[data-testid=activity] li.event:not([data-outcome=refused])').length)`); n != "0" {
			t.Errorf("%s rows that are not refused", n)
		}
		if err := tb.el(`[data-testid=filter-outcome]`, "").Select([]string{"Any outcome"}, true, "text"); err != nil {
			t.Fatal(err)
		}
		if err := tb.el(`[data-testid=filter-group_by]`, "").Select([]string{"By agent"}, true, "text"); err != nil {
			t.Fatal(err)
		}
		tb.el(`[data-testid=activity-groups] tbody tr`, regexp.QuoteMeta(agentName))
		tb.el(`[data-stat=calls] .stat-value`, `^7$`)
	})

	t.Run("a row opens its detail panel", func(t *testing.T) {
		tb.t = t
		tb.click(`li.event[data-outcome=error] [data-testid=open-record]`, "")
		panel := `dialog[open][data-testid=activity-panel]`
		tb.el(panel+` dd[data-field=tool]`, `^github_call$`)
		tb.el(panel+` dd[data-field=agent]`, regexp.QuoteMeta(agentName))
		tb.el(panel+` dd[data-field=client]`, `^API key wb_`)
		tb.el(panel+` dd[data-field=key]`, `^API key wb_`)
		tb.el(panel+` dd[data-field=outcome]`, `Invalid arguments INVALID_ARGUMENTS`)
		tb.el(panel+` dd[data-field=duration]`, `^40 ms$`)
		tb.el(panel+` dd[data-field=arguments]`, `\d+ bytes · SHA-256 [0-9a-f]{16}…`)
		tb.el(panel+` dd[data-field=trace]`, `^`+traced+`$`)
		tb.el(panel+` dd[data-field=time]`, `ago`)
		if txt := tb.text(panel); strings.Contains(txt, secret) || strings.Contains(txt, "TOPSECRET") {
			t.Errorf("the panel shows the secret argument: %q", txt)
		}
		tb.shot("activity-panel")
		tb.click(`[data-testid=panel-close]`, "")
		tb.waitJS("the panel never closed", `() => !document.querySelector('dialog[open]')`)
	})

	t.Run("on a phone the page does not scroll sideways", func(t *testing.T) {
		tb.t = t
		tb.phone()
		tb.open("/activity")
		tb.el(`[data-testid=chart-days] g.chart-bar`, "")
		tb.el(`[data-testid=activity] li.event`, "")
		tb.fits("the activity page on a phone")
		tb.shot("activity-phone")
	})
}
