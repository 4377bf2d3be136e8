package audithttp_test

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/audithttp"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// adminServer serves the compliance API and the receipts over real HTTP on 127.0.0.1, on a migrated
// SQLite log built by audittest, with the identity and audit projections running. The signed-in user
// is the X-Test-User header (the portal's session cookie in the real wiring); a request without
// X-Test-Same-Origin fails the same-origin rule.
type adminServer struct {
	url       string
	store     eventstore.Store
	runner    *projections.Runner
	root, eve uuid.UUID
}

func newAdminServer(t *testing.T) *adminServer {
	t.Helper()
	ctx := testCtx(t)
	sq := testenv.OpenSQLite(t)
	v := testenv.Vault(t, sq.DB, sq.Store)
	r, err := projections.NewRunner(sq.Store, sq.DB, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(v), auditrm.New().WithOpener(v)}, BatchSize: 4, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	audittest.Build(ctx, t, sq.Store, v)
	if _, err := audittest.AppendCurlSession(ctx, sq.Store); err != nil {
		t.Fatal(err)
	}
	acc := &accounts.Service{Store: sq.Store, Vault: v}
	root, _, _, err := acc.EnsureUser(ctx, "root@example.com", "", eventstore.Metadata{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	eve, _, last, err := acc.EnsureUser(ctx, "eve@example.com", "", eventstore.Metadata{Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	store := sq.Store
	roles := &compliance.Service{Store: store, Admins: []string{"root@example.com"}}
	router := chi.NewRouter()
	userOf := func(r *http.Request) (uuid.UUID, bool) {
		id, err := uuid.Parse(r.Header.Get("X-Test-User"))
		return id, err == nil
	}
	audithttp.MountAdmin(router, audithttp.AdminOptions{
		UserOf: userOf, SameOrigin: func(r *http.Request) bool { return r.Header.Get("X-Test-Same-Origin") != "" },
		Users: identityrm.Reader{DB: sq.DB}, Roles: roles, Records: auditrm.Reader{DB: sq.DB},
		AsOf: func(ctx context.Context, q auditrm.AsOfQuery) (auditrm.AsOfResult, error) {
			q.Opener = v
			return auditrm.AsOf(ctx, store, q)
		},
		BlastRadius: func(ctx context.Context, q auditrm.BlastQuery) (auditrm.BlastReport, error) {
			q.Opener = v
			return auditrm.BlastRadius(ctx, store, q)
		},
		WhatIf: func(ctx context.Context, q auditrm.WhatIfQuery) (auditrm.WhatIfReport, error) {
			q.Opener, q.Scopes, q.Current = v, &organizationsrm.Reader{DB: sq.DB}, connectorsrm.Reader{DB: sq.DB}
			return auditrm.WhatIf(ctx, store, q)
		},
	})
	audithttp.MountReceipts(router, userOf, auditrm.Reader{DB: sq.DB}, nil)
	srv := httptest.NewServer(router)
	t.Cleanup(srv.Close)
	return &adminServer{url: srv.URL, store: store, runner: r, root: root.ID, eve: eve.ID}
}

func (s *adminServer) do(t *testing.T, method, path string, user uuid.UUID, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if user != uuid.Nil {
		req.Header.Set("X-Test-User", user.String())
	}
	req.Header.Set("X-Test-Same-Origin", "1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func (s *adminServer) reads(t *testing.T) int {
	t.Helper()
	envs, err := s.store.ReadAll(testCtx(t), eventstore.Start, 100000)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range envs {
		if e.Type == identitydom.TypeAuditRead {
			n++
		}
	}
	return n
}

func TestAdminAuditAPI(t *testing.T) {
	s := newAdminServer(t)
	ctx := testCtx(t)

	// Nobody but an auditor reads; nobody but an admin grants.
	if resp, body := s.do(t, "GET", "/api/admin/audit", s.eve, ""); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a non-auditor read: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s.do(t, "GET", "/api/admin/audit", uuid.Nil, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signed out: %d", resp.StatusCode)
	}
	if resp, body := s.do(t, "POST", "/api/admin/auditors", s.eve, `{"email":"eve@example.com"}`); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a non-admin granted: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("POST", s.url+"/api/admin/auditors", strings.NewReader(`{"email":"eve@example.com"}`))
	req.Header.Set("X-Test-User", s.root.String())
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-origin grant: %v %v", resp, err)
	}
	if resp, body := s.do(t, "POST", "/api/admin/auditors", s.root, `{"email":"nobody@example.com"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("grant to an unknown user: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.do(t, "POST", "/api/admin/auditors", s.root, `{"email":"Eve@Example.com"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("grant: %d %s", resp.StatusCode, body)
	}
	if s.reads(t) != 0 {
		t.Fatal("refused reads were recorded as reads")
	}
	var me audithttp.Me
	if _, body := s.do(t, "GET", "/api/admin/audit/me", s.eve, ""); json.Unmarshal([]byte(body), &me) != nil || !me.Auditor || me.Admin {
		t.Fatalf("me: %s", body)
	}

	// Pages in log order, joined, are every record of Ada and Bob (the filter keeps the auditor's own
	// read records out).
	authorized := 0
	var all []auditrm.Record
	after := ""
	for pages := 0; ; pages++ {
		q := url.Values{"limit": {"4"}}
		if after != "" {
			q.Set("after", after)
		}
		q.Set("to", "2025-03-31")
		resp, body := s.do(t, "GET", "/api/admin/audit?"+q.Encode(), s.eve, "")
		authorized++
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page: %d %s", resp.StatusCode, body)
		}
		var page audithttp.ListPage
		if err := json.Unmarshal([]byte(body), &page); err != nil {
			t.Fatal(err)
		}
		all = append(all, page.Records...)
		if page.NextAfter == "" {
			break
		}
		after = page.NextAfter
		if pages > 20 {
			t.Fatal("paging does not end")
		}
	}
	if len(all) != 23 {
		t.Fatalf("paged %d records, want 23", len(all))
	}
	for i := 1; i < len(all); i++ {
		if !all[i-1].Position.Less(all[i].Position) {
			t.Fatalf("records out of log order at %d", i)
		}
	}

	// Filters.
	_, body := s.do(t, "GET", "/api/admin/audit?outcome=failed&user=ada@example.com", s.eve, "")
	authorized++
	var page audithttp.ListPage
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Records) != 3 {
		t.Fatalf("ada's failures: %s", body)
	}

	// JSON Lines and CSV stream the same records; CSV cells are defused.
	_, body = s.do(t, "GET", "/api/admin/audit?format=jsonl&to=2025-03-31", s.eve, "")
	authorized++
	lines := 0
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		var rec auditrm.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("jsonl line %d: %v", lines, err)
		}
		lines++
	}
	if lines != 23 {
		t.Fatalf("jsonl: %d lines, want 23", lines)
	}
	resp, body := s.do(t, "GET", "/api/admin/audit?format=csv&tool=%3DHYPERLINK(%22http%3A%2F%2Fevil.example%22%2C%22click%22)", s.eve, "")
	authorized++
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || resp.Header.Get("Content-Type") != "text/csv; charset=utf-8" || len(rows) != 2 {
		t.Fatalf("csv: %v %q %d rows", err, resp.Header.Get("Content-Type"), len(rows))
	}
	if tool := rows[1][8]; !strings.HasPrefix(tool, "'=") {
		t.Fatalf("csv tool cell not defused: %q", tool)
	}

	// Who held what when.
	resp, body = s.do(t, "GET", "/api/admin/audit/asof?at=2025-03-03T11:00:00Z", s.eve, "")
	authorized++
	var asof auditrm.AsOfResult
	if err := json.Unmarshal([]byte(body), &asof); err != nil || resp.StatusCode != 200 || len(asof.Holdings) != 2 {
		t.Fatalf("asof: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s.do(t, "GET", "/api/admin/audit/asof?at=yesterday", s.eve, ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a bad instant: %d", resp.StatusCode)
	}

	// Blast radius, JSON and HTML.
	_, body = s.do(t, "GET", "/api/admin/audit/blast-radius?api_key="+audittest.BobKey.String(), s.eve, "")
	authorized++
	var rep auditrm.BlastReport
	if err := json.Unmarshal([]byte(body), &rep); err != nil || rep.Totals.ProxiedRequests != 2 || rep.Totals.ToolRuns != 2 {
		t.Fatalf("blast radius: %s", body)
	}
	resp, body = s.do(t, "GET", "/api/admin/audit/blast-radius?format=html&api_key="+audittest.AdaKey1.String(), s.eve, "")
	authorized++
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(body, "github_create_issue") ||
		strings.Contains(body, `=HYPERLINK("http`) {
		t.Fatalf("html report: %q\n%s", resp.Header.Get("Content-Type"), body)
	}
	_, body = s.do(t, "GET", "/api/admin/audit/blast-radius?agent="+identitydom.DefaultAgentID(audittest.Bob).String(), s.eve, "")
	authorized++
	rep = auditrm.BlastReport{}
	if err := json.Unmarshal([]byte(body), &rep); err != nil || rep.Kind != auditrm.CredentialAgent || rep.Totals.ProxiedRequests != 2 || rep.Totals.ToolRuns != 2 {
		t.Fatalf("blast radius of bob's default agent: %s", body)
	}

	// Policy what-if: the switches are echoed; the log's executions are years old, so none is in the
	// window (the replay itself is tested in app/compliance).
	sw := "org:" + audittest.Ada.String() + ":github_list_repos=off"
	resp, body = s.do(t, "GET", "/api/admin/audit/what-if?days=7&switch="+url.QueryEscape(sw), s.eve, "")
	authorized++
	var wi auditrm.WhatIfReport
	if err := json.Unmarshal([]byte(body), &wi); err != nil || resp.StatusCode != 200 || len(wi.Switches) != 1 || wi.Switches[0] != sw ||
		wi.Totals != (auditrm.WhatIfTotals{}) || wi.Until.Sub(wi.Since) != 7*24*time.Hour {
		t.Fatalf("what-if: %d %s", resp.StatusCode, body)
	}
	for _, bad := range []string{"", "?switch=nope", "?switch=platform:x%3Doff&days=0", "?switch=platform:x%3Doff&days=week"} {
		if resp, _ := s.do(t, "GET", "/api/admin/audit/what-if"+bad, s.eve, ""); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("what-if%s: %d", bad, resp.StatusCode)
		}
	}
	if resp, _ := s.do(t, "GET", "/api/admin/audit/what-if?switch=platform:x%3Doff", s.root, ""); resp.StatusCode != http.StatusForbidden {
		t.Errorf("what-if by a non-auditor: %d", resp.StatusCode)
	}

	for _, bad := range []string{"", "?agent=x", "?api_key=1&session=2", "?api_key=not-a-uuid", "?agent=" + uuid.NewString() + "&api_key=" + uuid.NewString()} {
		if resp, _ := s.do(t, "GET", "/api/admin/audit/blast-radius"+bad, s.eve, ""); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("blast-radius%s: %d", bad, resp.StatusCode)
		}
	}

	// Every authorised read is an identity.audit_read in the log, and a record in the read model.
	if got := s.reads(t); got != authorized {
		t.Fatalf("%d reads recorded, want %d", got, authorized)
	}
	_, last, _ := eventstoreLast(t, s.store)
	if err := s.runner.WaitFor(ctx, last); err != nil {
		t.Fatal(err)
	}
	_, body = s.do(t, "GET", "/api/admin/audit?user=eve@example.com&limit=500", s.eve, "")
	if err := json.Unmarshal([]byte(body), &page); err != nil {
		t.Fatal(err)
	}
	kinds := map[auditrm.Kind]int{}
	for _, r := range page.Records {
		kinds[r.Kind]++
	}
	// This list is a read too, recorded before it runs: the read model may or may not have applied its
	// own record by the time it is read.
	if n := kinds[auditrm.KindAuditRead]; (n != authorized && n != authorized+1) || kinds[auditrm.KindAuditorGranted] != 1 {
		t.Fatalf("eve's own records: %v", kinds)
	}

	// Revoked: no more reads.
	if resp, body := s.do(t, "DELETE", "/api/admin/auditors/eve%40example.com", s.root, ""); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s.do(t, "GET", "/api/admin/audit", s.eve, ""); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a revoked auditor read: %d", resp.StatusCode)
	}
}

func eventstoreLast(t *testing.T, store eventstore.Store) (int, eventstore.Position, error) {
	t.Helper()
	envs, err := store.ReadAll(testCtx(t), eventstore.Start, 100000)
	if err != nil || len(envs) == 0 {
		t.Fatalf("read the log: %v", err)
	}
	return len(envs), envs[len(envs)-1].Position, nil
}

// TestReceipts: a user's connection timeline and monthly summary hold their own records only.
func TestReceipts(t *testing.T) {
	s := newAdminServer(t)
	resp, body := s.do(t, "GET", "/api/audit/receipts?integration=github", audittest.Ada, "")
	var page audithttp.ListPage
	if err := json.Unmarshal([]byte(body), &page); err != nil || resp.StatusCode != 200 {
		t.Fatalf("receipts: %d %s", resp.StatusCode, body)
	}
	for _, r := range page.Records {
		if r.UserID != audittest.Ada || r.Integration != "github" {
			t.Fatalf("a receipt not Ada's github: %+v", r)
		}
	}
	if len(page.Records) != 9 { // started, connected, refreshed, reauth, disconnected, 4 tool runs
		t.Fatalf("ada's github receipts: %d", len(page.Records))
	}
	_, body = s.do(t, "GET", "/api/audit/receipts?integration=github&user=bob@example.com", audittest.Ada, "")
	if err := json.Unmarshal([]byte(body), &page); err != nil || len(page.Records) != 9 {
		t.Fatalf("the user filter reached another user: %s", body)
	}
	_, body = s.do(t, "GET", "/api/audit/receipts/summary?integration=github", audittest.Ada, "")
	var sum audithttp.Summary
	if err := json.Unmarshal([]byte(body), &sum); err != nil || len(sum.Months) != 1 {
		t.Fatalf("summary: %s", body)
	}
	if m := sum.Months[0]; m.Month != "2025-03" || m.ToolRuns != 4 || m.Failed != 2 || m.Clients[audittest.AdaKey1.String()] != 4 {
		t.Fatalf("summary month: %+v", m)
	}
	if resp, _ := s.do(t, "GET", "/api/audit/receipts", audittest.Ada, ""); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("receipts without an integration: %d", resp.StatusCode)
	}
	if resp, _ := s.do(t, "GET", "/api/audit/receipts?integration=github", uuid.Nil, ""); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("receipts signed out: %d", resp.StatusCode)
	}
}
