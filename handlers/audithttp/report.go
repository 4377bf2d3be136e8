package audithttp

import (
	"html/template"
	"io"
	"strconv"
	"time"

	"github.com/workbench/workbench/projections/auditrm"
)

// blastPage is the one-page HTML blast-radius report: printable, self-contained (inline style, no
// script), every value escaped by html/template.
var blastPage = template.Must(template.New("blast").Funcs(template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"outcome": func(r auditrm.Record) string {
		switch {
		case r.Success != nil && *r.Success:
			return "ok"
		case r.ErrorCode != "":
			return r.ErrorCode
		case r.Status != 0:
			return "HTTP " + strconv.Itoa(r.Status)
		}
		return ""
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blast radius: {{.Kind}} {{.ID}}</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #bbb;padding:.2em .5em;text-align:left}
th{background:#eee}.n{text-align:right}h1{font-size:1.4em}
@media print{body{margin:0}}
</style></head><body>
<h1>Blast radius of {{.Kind}} <code>{{.ID}}</code>{{if .Name}} ({{.Name}}){{end}}</h1>
<p>Owner: {{if .OwnerEmail}}{{.OwnerEmail}}{{else}}—{{end}} · issued {{when .IssuedAt}} · revoked {{when .RevokedAt}}{{if not .ExpiresAt.IsZero}} · expires {{when .ExpiresAt}}{{end}} · {{.Scanned}} events read from the log</p>
<h2>Totals</h2>
<table id="totals">
<tr><th>Tool runs</th><td class="n">{{.Totals.ToolRuns}}</td><th>Failed</th><td class="n">{{.Totals.ToolFailures}}</td></tr>
<tr><th>Proxied requests</th><td class="n">{{.Totals.ProxiedRequests}}</td><th>Curl sessions</th><td class="n">{{.Totals.CurlSessions}}</td></tr>
<tr><th>Jots deployed</th><td class="n">{{.Totals.JotsDeployed}}</td><th>Connections started</th><td class="n">{{.Totals.ConnectsStarted}}</td></tr>
<tr><th>Users</th><td class="n">{{.Totals.Users}}</td><th>Requests without outcome</th><td class="n">{{.Totals.LostRequestOutcomes}}</td></tr>
</table>
<h2>By integration</h2>
<table id="by-integration"><tr><th>Integration</th><th>Tool runs</th><th>Succeeded</th><th>Outcomes</th><th>Proxied</th></tr>
{{range .ByIntegration}}<tr><td>{{.Integration}}</td><td class="n">{{.ToolRuns}}</td><td class="n">{{.Succeeded}}</td><td>{{range $k, $v := .Outcomes}}{{$k}}: {{$v}} {{end}}</td><td class="n">{{.ProxiedRequests}}</td></tr>
{{end}}</table>
<h2>Records</h2>
<table id="records"><tr><th>Time</th><th>Kind</th><th>User</th><th>Integration</th><th>Tool / request</th><th>Outcome</th></tr>
{{range .Records}}<tr><td>{{when .Time}}</td><td>{{.Kind}}</td><td>{{.Email}}</td><td>{{.Integration}}</td><td>{{if .Tool}}{{.Tool}}{{else}}{{.Method}} {{.Path}}{{end}}</td><td>{{outcome .}}</td></tr>
{{end}}</table>
</body></html>
`))

// WriteBlastHTML writes the one-page HTML report of rep.
func WriteBlastHTML(w io.Writer, rep auditrm.BlastReport) error { return blastPage.Execute(w, rep) }
