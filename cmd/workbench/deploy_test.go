package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// pendingMetrics are named by deploy/ but not exported yet. Each entry says whose; the test fails once
// the metric is exported, so the entry is removed then. None is pending today.
var pendingMetrics = map[string]string{}

// prometheusOwn are series Prometheus makes itself for every target, not the server.
var prometheusOwn = []string{"up"}

// Every metric the alert rules and the Grafana dashboard in deploy/ name is one the server exports at
// /metrics (a dashboard panel on a misspelt name is silently empty; an alert on one never fires).
func TestDeployMetricsExist(t *testing.T) {
	t.Parallel()
	named := map[string][]string{} // metric → where it is named
	for _, m := range alertRuleMetrics(t, filepath.Join("..", "..", "deploy", "prometheus", "workbench-alerts.yaml")) {
		named[m.metric] = append(named[m.metric], "alert "+m.where)
	}
	for _, m := range dashboardMetrics(t, filepath.Join("..", "..", "deploy", "grafana", "workbench-dashboard.json")) {
		named[m.metric] = append(named[m.metric], "panel "+m.where)
	}
	if len(named) < 8 {
		t.Fatalf("found only %d metric names in deploy/: %v (is the extraction broken?)", len(named), named)
	}

	dir := t.TempDir()
	// A webhook sink is configured (to a receiver that accepts every batch) so the sink's series exist:
	// workbench_audit_sink_lag is exported per configured sink.
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(recv.Close)
	base, _ := serveInProcess(t, map[string]string{"DATABASE_URL": filepath.Join(dir, "wb.db"),
		"AUDIT_SINK_URL": recv.URL + "/siem", "AUDIT_SINK_SECRET": "0123456789abcdef0123456789abcdef", "WORKBENCH_DEV_ALLOW_LOOPBACK": "true"})
	waitReady(t, base)
	get(t, base+"/healthz") // at least one request, so the HTTP histogram has series
	code, body := get(t, base+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	exported := exportedMetrics(body)

	var missing []string
	for metric, where := range named {
		_, pending := pendingMetrics[metric]
		switch {
		case slices.Contains(prometheusOwn, metric):
		case exported[metric] && pending:
			t.Errorf("%s is exported now: remove it from pendingMetrics", metric)
		case exported[metric], pending:
		default:
			missing = append(missing, metric+" (named by "+strings.Join(where, ", ")+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("not exported at /metrics: %s", m)
	}
	for metric := range pendingMetrics {
		if _, ok := named[metric]; !ok {
			t.Errorf("pending metric %s is named nowhere in deploy/: drop it from pendingMetrics", metric)
		}
	}
	// A single replica on SQLite publishes the log itself: it is the relay leader.
	if !strings.Contains(body, "\nworkbench_relay_leader 1\n") {
		t.Errorf("workbench_relay_leader is not 1 on a lone replica:\n%s", grepLines(body, "workbench_relay_leader"))
	}
}

type metricUse struct{ metric, where string }

func alertRuleMetrics(t *testing.T, path string) []metricUse {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert  string            `yaml:"alert"`
				Record string            `yaml:"record"`
				Expr   string            `yaml:"expr"`
				Labels map[string]string `yaml:"labels"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []metricUse
	alerts := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || strings.TrimSpace(r.Expr) == "" || r.Labels["severity"] == "" {
				t.Errorf("%s: rule %+v lacks an alert name, an expression or a severity", path, r)
				continue
			}
			alerts[r.Alert] = true
			names := promqlMetrics(r.Expr)
			if len(names) == 0 {
				t.Errorf("%s: alert %s names no metric in %q", path, r.Alert, r.Expr)
			}
			for _, n := range names {
				out = append(out, metricUse{n, r.Alert})
			}
		}
	}
	// The alerts an operator was promised.
	for _, want := range []string{"WorkbenchProjectionLagging", "WorkbenchAppendLatencyHigh", "WorkbenchRelayLeadershipLost",
		"WorkbenchAuditSinkLagging", "WorkbenchHigh5xxRate", "WorkbenchVaultFailures"} {
		if !alerts[want] {
			t.Errorf("%s: no alert %s", path, want)
		}
	}
	return out
}

func dashboardMetrics(t *testing.T, path string) []metricUse {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string `json:"title"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []metricUse
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no query", path, p.Title)
		}
		for _, tg := range p.Targets {
			names := promqlMetrics(tg.Expr)
			if len(names) == 0 {
				t.Errorf("%s: panel %q names no metric in %q", path, p.Title, tg.Expr)
			}
			for _, n := range names {
				out = append(out, metricUse{n, p.Title})
			}
		}
	}
	labelValues := regexp.MustCompile(`label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*,`)
	for _, v := range dash.Templating.List {
		if m := labelValues.FindStringSubmatch(v.Definition); m != nil {
			out = append(out, metricUse{m[1], "variable " + v.Name})
		}
	}
	return out
}

var (
	promStrings   = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	promMatchers  = regexp.MustCompile(`\{[^}]*\}`)
	promRanges    = regexp.MustCompile(`\[[^\]]*\]`)
	promGrouping  = regexp.MustCompile(`\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent     = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*`)
	promKeywords  = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan"}
	promFunctions = regexp.MustCompile(`^\s*\(`)
)

// promqlMetrics returns the metric names a PromQL expression reads: every identifier that is not in a
// string, a label matcher, a range, a grouping clause, a function call or a keyword.
func promqlMetrics(expr string) []string {
	s := promStrings.ReplaceAllString(expr, " ")
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promGrouping.ReplaceAllString(s, " ")
	var out []string
	for _, loc := range promIdent.FindAllStringIndex(s, -1) {
		word := s[loc[0]:loc[1]]
		if slices.Contains(promKeywords, strings.ToLower(word)) || promFunctions.MatchString(s[loc[1]:]) {
			continue
		}
		if loc[0] > 0 && (s[loc[0]-1] == '$' || s[loc[0]-1] == '.') { // Grafana variables, numbers
			continue
		}
		if !slices.Contains(out, word) {
			out = append(out, word)
		}
	}
	return out
}

// exportedMetrics is the set of sample names in a text-format scrape (histograms as _bucket, _sum and
// _count, as PromQL names them).
func exportedMetrics(body string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(body, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line
		if i := strings.IndexAny(line, "{ "); i >= 0 {
			name = line[:i]
		}
		out[name] = true
	}
	return out
}

func grepLines(body, prefix string) string {
	var b strings.Builder
	for _, line := range strings.Split(body, "\n") {
		if strings.HasPrefix(line, prefix) {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func TestPromQLMetrics(t *testing.T) {
	t.Parallel()
	got := promqlMetrics(`sum by (instance, le) (rate(a_bucket{outcome="ok",x=~"$i"}[5m])) / on(instance) group_left b_total > 0.25 and up{job="w"} == 0`)
	want := []string{"a_bucket", "b_total", "up"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
