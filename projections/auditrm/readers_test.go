package auditrm_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

// TestAsOf folds Build's log at several instants and checks every connection's state, generation,
// scopes, hint and maker, on both backends; the read models are never started, so the answer can
// only come from the log.
func TestAsOf(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		audittest.Build(ctx, t, b.store, b.vault(t))
		type row struct {
			Email, Integration, Status string
			Generation                 int64
			Scopes                     []string
			Hint, CreatedBy            string
		}
		at := func(d time.Duration, q auditrm.AsOfQuery) []row {
			t.Helper()
			q.At = audittest.Day1.Add(d)
			res, err := auditrm.AsOf(ctx, b.store, q)
			if err != nil {
				t.Fatal(err)
			}
			var out []row
			for _, h := range res.Holdings {
				out = append(out, row{h.Email, h.Integration, h.Status, h.Generation, h.Scopes, h.AccountHint, h.CreatedBy})
			}
			return out
		}
		ada, bob := audittest.Ada.String(), audittest.Bob.String()
		github := func(status string, gen int64) row {
			return row{"ada@example.com", "github", status, gen, []string{"repo", "read:user"}, "@octocat", ada}
		}
		cases := []struct {
			name string
			d    time.Duration
			q    auditrm.AsOfQuery
			want []row
		}{
			{"before anything", 30 * time.Minute, auditrm.AsOfQuery{}, nil},
			{"attempt pending", time.Hour, auditrm.AsOfQuery{}, []row{{"ada@example.com", "github", "pending", 0, nil, "", ada}}},
			{"connected", 2 * time.Hour, auditrm.AsOfQuery{}, []row{github("connected", 1)}},
			{"refreshed, bob's attempt expired", 30 * time.Hour, auditrm.AsOfQuery{}, []row{
				github("connected", 2), {"bob@example.com", "newrelic", "none", 0, nil, "", bob}}},
			{"bob connected", 50 * time.Hour, auditrm.AsOfQuery{}, []row{
				github("connected", 2), {"bob@example.com", "newrelic", "connected", 1, nil, "", bob}}},
			{"one user", 50 * time.Hour, auditrm.AsOfQuery{Email: "BOB@example.com"}, []row{{"bob@example.com", "newrelic", "connected", 1, nil, "", bob}}},
			{"one integration", 80 * time.Hour, auditrm.AsOfQuery{Integration: "github"}, []row{github("needs_reauth", 2)}},
			{"disconnected", 200 * time.Hour, auditrm.AsOfQuery{Integration: "github"}, []row{{"ada@example.com", "github", "disconnected", 2, nil, "", ada}}},
		}
		for _, tc := range cases {
			if diff := cmp.Diff(tc.want, at(tc.d, tc.q)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, diff)
			}
		}
		if _, err := auditrm.AsOf(ctx, b.store, auditrm.AsOfQuery{}); err == nil {
			t.Error("asof without an instant was accepted")
		}
	})
}

// TestBlastRadius: what an API key, a curl session and an OAuth client did, from the log.
func TestBlastRadius(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		audittest.Build(ctx, t, b.store, b.vault(t))
		if _, err := audittest.AppendCurlSession(ctx, b.store); err != nil {
			t.Fatal(err)
		}
		if _, _, err := audittest.AppendAccess(ctx, b.store); err != nil {
			t.Fatal(err)
		}
		rep, err := auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAPIKey, ID: audittest.AdaKey1.String()})
		if err != nil {
			t.Fatal(err)
		}
		if want := (auditrm.BlastTotals{ToolRuns: 5, ToolFailures: 3, Users: 1}); rep.Totals != want {
			t.Errorf("ada's first key: totals %+v, want %+v", rep.Totals, want)
		}
		if !rep.IssuedAt.Equal(audittest.Day1.Add(10*time.Minute)) || !rep.RevokedAt.Equal(audittest.Day1.Add(74*time.Hour)) || rep.OwnerEmail != "ada@example.com" {
			t.Errorf("ada's first key: issued %s revoked %s owner %q", rep.IssuedAt, rep.RevokedAt, rep.OwnerEmail)
		}
		gotBy := map[string]map[string]int64{}
		for _, it := range rep.ByIntegration {
			gotBy[it.Integration] = it.Outcomes
		}
		wantBy := map[string]map[string]int64{
			"github": {"ok": 2, "INVALID_ARGUMENTS": 1, "NOT_CONNECTED": 1},
			"utils":  {"UNKNOWN_TOOL": 1},
		}
		if diff := cmp.Diff(wantBy, gotBy); diff != "" {
			t.Errorf("ada's first key by integration (-want +got):\n%s", diff)
		}

		rep, err = auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialAPIKey, ID: audittest.BobKey.String()})
		if err != nil {
			t.Fatal(err)
		}
		if want := (auditrm.BlastTotals{ToolRuns: 2, ProxiedRequests: 2, CurlSessions: 1, Users: 1}); rep.Totals != want {
			t.Errorf("bob's key: totals %+v, want %+v", rep.Totals, want)
		}

		rep, err = auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialCurlSession, ID: audittest.BobSession.String()})
		if err != nil {
			t.Fatal(err)
		}
		if want := (auditrm.BlastTotals{ProxiedRequests: 2, CurlSessions: 1, Users: 1}); rep.Totals != want || len(rep.Records) != 3 {
			t.Errorf("bob's session: totals %+v (want %+v), %d records", rep.Totals, want, len(rep.Records))
		}

		rep, err = auditrm.BlastRadius(ctx, b.store, auditrm.BlastQuery{Kind: auditrm.CredentialOAuthClient, ID: audittest.ClientID})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Name != audittest.ClientName || rep.IssuedAt.IsZero() || rep.RevokedAt.IsZero() || rep.Totals.ToolRuns != 1 {
			t.Errorf("oauth client: %+v", rep)
		}
		for _, bad := range []auditrm.BlastQuery{{Kind: auditrm.CredentialAPIKey, ID: "nope"}, {Kind: "agent", ID: "x"}, {Kind: auditrm.CredentialOAuthClient}} {
			if _, err := auditrm.BlastRadius(ctx, b.store, bad); err == nil {
				t.Errorf("%+v was accepted", bad)
			}
		}
	})
}

// TestList pages every user's records in log order through the read model with filters, and the
// pages joined are the one-shot answer.
func TestList(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		ctx := testCtx(t)
		runner := b.running(t)
		audittest.Build(ctx, t, b.store, b.vault(t))
		last, err := audittest.AppendCurlSession(ctx, b.store)
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.WaitFor(ctx, last); err != nil {
			t.Fatal(err)
		}
		reader := auditrm.Reader{DB: b.db}
		list := func(q auditrm.Query) ([]auditrm.Record, bool) {
			t.Helper()
			var out []auditrm.Record
			more, err := reader.List(ctx, q, func(r auditrm.Record) error { out = append(out, r); return nil })
			if err != nil {
				t.Fatal(err)
			}
			return out, more
		}
		all, more := list(auditrm.Query{})
		if len(all) != 23 || more {
			t.Fatalf("all: %d records, more %v; want 23", len(all), more)
		}
		for i := 1; i < len(all); i++ {
			if !all[i-1].Position.Less(all[i].Position) {
				t.Fatalf("not in log order at %d", i)
			}
		}
		var paged []auditrm.Record
		after := eventstore.Start
		for pages := 0; ; pages++ {
			page, more := list(auditrm.Query{After: after, Limit: 5})
			paged = append(paged, page...)
			if !more {
				break
			}
			after = page[len(page)-1].Position
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
		if diff := cmp.Diff(asJSON(t, all), asJSON(t, paged)); diff != "" {
			t.Errorf("pages differ from the whole (-whole +pages):\n%s", diff)
		}
		count := func(q auditrm.Query) int { r, _ := list(q); return len(r) }
		for _, c := range []struct {
			name string
			q    auditrm.Query
			want int
		}{
			{"tool", auditrm.Query{Tool: "github_list_repos"}, 3},
			{"failed", auditrm.Query{Outcome: "failed"}, 4},
			{"ok", auditrm.Query{Outcome: "ok"}, 5},
			{"one code", auditrm.Query{Outcome: "NOT_CONNECTED"}, 1},
			{"client", auditrm.Query{Client: audittest.BobKey.String()}, 3},
			{"user", auditrm.Query{Email: "bob@example.com", Integration: "newrelic"}, 6}, // started, expired, connected, a tool run, two requests
			{"time", auditrm.Query{From: audittest.Day1.Add(48 * time.Hour), To: audittest.Day1.Add(50 * time.Hour)}, 2},
		} {
			if got := count(c.q); got != c.want {
				t.Errorf("%s: %d records, want %d", c.name, got, c.want)
			}
		}
	})
}
