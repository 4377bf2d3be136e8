package main

// The compliance pages in real headless Chromium: a user's usage receipts for a connection (timeline
// and monthly summary), and the Audit page, where the instance admin (the startup link's user) grants
// themself the auditor role, then searches every user's records, asks who held what, and reads a
// credential's blast radius; every read is an identity.audit_read event in the log.

import (
	"context"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connection"
	"github.com/workbench/workbench/domain/execution"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

func TestAuditPagesInChromium(t *testing.T) {
	t.Parallel()
	browser := launchChromium(t)
	srv := startE2E(t, filepath.Join(t.TempDir(), "wb.db"), nil, slog.LevelInfo)
	tb := openTab(t, browser, srv.Base)
	ctx := context.Background()

	link := startupSignInLink(t, srv)
	tb.open(strings.TrimPrefix(link, srv.Base))
	tb.waitURL(`^/$`)
	admin := srv.user(t, "admin@workbench.localhost")

	// The admin's agent used github three times through their API key; a connect attempt is pending.
	now := time.Now().UTC().Truncate(time.Second)
	var last eventstore.Position
	for i, tool := range []string{"github_list_repos", "github_list_repos", "github_create_issue"} {
		ev := execution.ToolExecuted{ExecutionID: uuid.New(), UserID: admin.ID, Via: "api_key", ClientID: admin.KeyID.String(),
			Integration: "github", Tool: tool, Success: i < 2, DurationMS: 12, At: now.Add(time.Duration(i-10) * time.Minute)}
		if i == 2 {
			ev.ErrorCode = "INVALID_ARGUMENTS"
		}
		ev.ArgsSize, ev.ArgsSHA256 = execution.Digest([]byte(`{}`))
		pos, err := audittest.AppendToolRun(ctx, srv.M.Store, ev)
		if err != nil {
			t.Fatal(err)
		}
		last = pos
	}
	conns := eventstore.Aggregate[connection.State, connection.Command, domain.Event]{
		Initial: connection.Initial, Evolve: connection.Evolve, Decide: connection.Decide,
		Codec: eventstore.NewJSONCodec(connection.Events()...),
	}
	res, err := eventstore.Execute(ctx, srv.M.Store, connection.StreamName(admin.ID, "github", ""), conns,
		connection.Command(connection.Start{AttemptID: uuid.New(), UserID: admin.ID, Integration: "github", AuthMode: connection.AuthOAuth2,
			At: now.Add(-5 * time.Minute), ExpiresAt: now.Add(time.Hour)}),
		eventstore.Metadata{Actor: admin.ID.String(), Time: now.Add(-5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Position.Less(last) {
		t.Fatal("positions out of order")
	}
	srv.waitFor(t, res.Position)

	t.Run("usage receipts of a connection", func(t *testing.T) {
		tb.t = t
		tb.open("/receipts?integration=github")
		tb.el(`[data-testid=receipts] tr[data-kind=tool_executed]`, "github_create_issue")
		tb.el(`[data-testid=receipts] tr[data-kind=tool_executed]`, "INVALID_ARGUMENTS")
		month := now.Format("2006-01")
		row := tb.text(`[data-testid=receipts-summary] tr[data-month="` + month + `"]`)
		// The client is named as every page names it: the key's display prefix, never its id.
		if !strings.Contains(row, month) || !strings.Contains(row, "3") || !regexp.MustCompile(`API key wb_\S+…: 3`).MatchString(row) || strings.Contains(row, admin.KeyID.String()[:8]) {
			t.Fatalf("summary row %q", row)
		}
		// Filter: failures only.
		if err := tb.el(`[data-testid=receipts-filters] select[name=outcome]`, "").Select([]string{"Failed"}, true, "text"); err != nil {
			t.Fatal(err)
		}
		tb.click(`[data-testid=receipts-show]`, "")
		tb.el(`[data-testid=receipts-more], .more p`, "everything")
		waitRows(t, tb, `[data-testid=receipts] tbody tr`, 1)
		tb.shot("receipts")
	})

	t.Run("the audit page: grant, search, asof, blast radius", func(t *testing.T) {
		tb.t = t
		tb.open("/audit")
		tb.el(`.notice`, "not an auditor")
		if err := tb.el(`[data-testid=grant-auditor] input[name=email]`, "").Input("admin@workbench.localhost"); err != nil {
			t.Fatal(err)
		}
		tb.click(`[data-testid=grant]`, "")
		tb.el(`[data-testid=audit-records] tr[data-kind=tool_executed]`, "github_create_issue")
		tb.el(`[data-testid=audit-records] tr[data-kind=auditor_granted]`, "Auditor role granted")
		// Names and labels, not ids and codes: the kind reads as a person would say it, the client is
		// the key's name (the one Activity gives it) and no cell holds the key's id.
		tb.el(`[data-testid=audit-records] tr[data-kind=tool_executed] td`, `^Tool call$`)
		tb.el(`[data-testid=audit-records] tr[data-kind=tool_executed] td[data-field=client]`, `API key wb_`)
		if strings.Contains(tb.text(`[data-testid=audit-records]`), admin.KeyID.String()) {
			t.Error("the audit records show the key's id")
		}
		if href, err := tb.el(`[data-testid=export-csv]`, "").Attribute("href"); err != nil || href == nil || !strings.Contains(*href, "format=csv") {
			t.Fatalf("csv export link: %v %v", href, err)
		}
		// Search by tool.
		if err := tb.el(`[data-testid=audit-filters] input[name=tool]`, "").Input("github_list_repos"); err != nil {
			t.Fatal(err)
		}
		tb.click(`[data-testid=audit-search]`, "")
		waitRows(t, tb, `[data-testid=audit-records] tbody tr`, 2)
		tb.shot("audit-records")

		// Who held what when.
		if err := tb.el(`[data-testid=asof-form] input[name=at]`, "").Input(now.Format(time.RFC3339)); err != nil {
			t.Fatal(err)
		}
		tb.click(`[data-testid=asof-run]`, "")
		tb.el(`[data-testid=asof-result] tr[data-status=pending]`, "github")

		// Blast radius of the API key, chosen from the list of credentials the records name.
		if err := tb.el(`[data-testid=blast-credential]`, "").Select([]string{`API key wb_`}, true, "regex"); err != nil {
			t.Fatal(err)
		}
		if v := tb.eval(`() => document.querySelector('[data-testid=blast-credential]').value`); v != "api_key:"+admin.KeyID.String() {
			t.Fatalf("the list chose %q, want the admin's key", v)
		}
		tb.el(`[data-testid=blast-credential] optgroup[label=Agents] option`, `admin@workbench.localhost`)
		tb.click(`[data-testid=blast-run]`, "")
		tb.el(`[data-testid=blast-result] li`, `Tool runs: 3 \(1 failed\)`)
		tb.el(`[data-testid=blast-html]`, "One-page report")
		tb.shot("audit-asof-blast")
	})

	// Every auditor read the pages made (the first records page, the search, asof, blast radius) is in
	// the log.
	reads := srv.events(t, identitydom.TypeAuditRead)
	if len(reads) < 4 {
		t.Fatalf("%d audit reads recorded, want at least 4", len(reads))
	}
	views := map[string]bool{}
	for _, e := range reads {
		if e.Metadata.Actor != admin.ID.String() {
			t.Fatalf("a read by %q", e.Metadata.Actor)
		}
		views[readView(t, e)] = true
	}
	for _, v := range []string{"list", "asof", "blast_radius"} {
		if !views[v] {
			t.Errorf("no %s read recorded (%v)", v, views)
		}
	}
}

func readView(t *testing.T, e eventstore.Envelope) string {
	t.Helper()
	ev, err := eventstore.NewJSONCodec(identitydom.RoleEvents()...).Decode(e.Type, e.SchemaVersion, e.Data)
	if err != nil {
		t.Fatal(err)
	}
	return ev.(identitydom.AuditRead).View
}

// waitRows waits until selector matches exactly n elements.
func waitRows(t *testing.T, tb *tab, selector string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		els, err := tb.p.Elements(selector)
		if err == nil && len(els) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d elements, want %d", selector, len(els), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
