package auditrm_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/auditrm/audittest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture is the deterministic log (Build, then AppendCurlSession and AppendAccess) on a fresh SQLite
// store.
type fixture struct {
	store eventstore.Store
	log   audittest.Log
	// ids maps every event id in the log to a stable name, so that golden files do not depend on the
	// random ids the command loop and the vault give events.
	ids *strings.Replacer
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	be := openSQLite(t)
	store := be.store
	log := audittest.Build(testCtx(t), t, store, be.vault(t))
	if _, err := audittest.AppendCurlSession(testCtx(t), store); err != nil {
		t.Fatal(err)
	}
	secrets, _, err := audittest.AppendAccess(testCtx(t), store)
	if err != nil {
		t.Fatal(err)
	}
	log.Secrets = append(log.Secrets, secrets...)
	envs, err := store.ReadAll(testCtx(t), eventstore.Start, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	for _, env := range envs {
		pairs = append(pairs, env.ID.String(), fmt.Sprintf("event-%03d", env.Position.Commit))
	}
	return fixture{store: store, log: log, ids: strings.NewReplacer(pairs...)}
}

// export replays with f into the format and returns the output with event ids named stably.
func (fx fixture) export(t *testing.T, f auditrm.Filter, format string) (string, []auditrm.Record) {
	t.Helper()
	var buf bytes.Buffer
	w, err := auditrm.NewWriter(format, &buf)
	if err != nil {
		t.Fatal(err)
	}
	var recs []auditrm.Record
	err = auditrm.Replay(testCtx(t), fx.store, f, func(r auditrm.Record) error {
		recs = append(recs, r)
		return w.Write(r)
	}, nil)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return fx.ids.Replace(buf.String()), recs
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got):\n%s", name, diff)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// Every filter, in both formats, against golden files; and what each filter promises, checked on the
// records themselves so that a wrong golden file cannot hide a wrong filter.
func TestReplayFilters(t *testing.T) {
	fx := newFixture(t)
	day := func(n int) time.Time { return audittest.Day1.AddDate(0, 0, n-1) }
	cases := []struct {
		name   string
		filter auditrm.Filter
		want   int // records
		check  func(auditrm.Record) bool
	}{
		{"all", auditrm.Filter{}, 29, func(auditrm.Record) bool { return true }},
		{"from", auditrm.Filter{From: day(3)}, 18, func(r auditrm.Record) bool { return !r.Time.Before(day(3)) }},
		{"to", auditrm.Filter{To: day(2)}, 7, func(r auditrm.Record) bool { return r.Time.Before(day(2)) }},
		{"from_to", auditrm.Filter{From: day(2), To: day(4)}, 10, func(r auditrm.Record) bool { return !r.Time.Before(day(2)) && r.Time.Before(day(4)) }},
		{"user", auditrm.Filter{Email: " ADA@example.com"}, 14, func(r auditrm.Record) bool { return r.UserID == audittest.Ada && r.Email == "ada@example.com" }},
		{"integration", auditrm.Filter{Integration: "github"}, 9, func(r auditrm.Record) bool { return r.Integration == "github" }},
		{"user_integration_range", auditrm.Filter{Email: "bob@example.com", Integration: "newrelic", From: day(2), To: day(3)}, 2,
			func(r auditrm.Record) bool {
				return r.UserID == audittest.Bob && r.Integration == "newrelic" && r.Kind != auditrm.KindConnected
			}},
		// A curl session minted for an integration is about it, though it names it in Integrations.
		{"curl_session", auditrm.Filter{Email: "bob@example.com", Integration: "newrelic", From: day(3)}, 5,
			func(r auditrm.Record) bool {
				return r.UserID == audittest.Bob && (r.Integration == "newrelic" || r.Kind == auditrm.KindCurlSessionMinted && r.Integrations[0] == "newrelic")
			}},
		{"nobody", auditrm.Filter{Email: "carol@example.com"}, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jsonl, recs := fx.export(t, tc.filter, auditrm.FormatJSONL)
			csvOut, _ := fx.export(t, tc.filter, auditrm.FormatCSV)
			if len(recs) != tc.want {
				t.Fatalf("%d records, want %d", len(recs), tc.want)
			}
			for i, r := range recs {
				if !tc.check(r) {
					t.Errorf("record %d does not pass the filter: %+v", i, r)
				}
				if i > 0 && !recs[i-1].Position.Less(r.Position) {
					t.Errorf("record %d at %s is not after %s: not in log order", i, r.Position, recs[i-1].Position)
				}
			}
			golden(t, tc.name+".jsonl", jsonl)
			golden(t, tc.name+".csv", csvOut)
			if lines := strings.Count(jsonl, "\n"); lines != tc.want {
				t.Errorf("%d JSON lines, want %d", lines, tc.want)
			}
			rows, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
			if err != nil {
				t.Fatalf("the CSV does not parse: %v", err)
			}
			if len(rows) != tc.want+1 || !cmp.Equal(rows[0], auditrm.CSVHeader) {
				t.Fatalf("CSV has %d rows (want a header and %d) starting %v", len(rows), tc.want, rows[0])
			}
		})
	}
}

// Every kind appears, with the fields an auditor needs, and nothing secret leaks in either format.
func TestReplayRecordsAndNoSecrets(t *testing.T) {
	fx := newFixture(t)
	jsonl, recs := fx.export(t, auditrm.Filter{}, auditrm.FormatJSONL)
	csvOut, _ := fx.export(t, auditrm.Filter{}, auditrm.FormatCSV)
	kinds := map[auditrm.Kind]int{}
	for _, r := range recs {
		kinds[r.Kind]++
		if r.Time.IsZero() || r.Time.Location() != time.UTC || r.EventID.String() == "" || r.Position.IsZero() {
			t.Errorf("record lacks time, id or position: %+v", r)
		}
		if r.UserID == audittest.Ada && r.Email != "ada@example.com" || r.UserID == audittest.Bob && r.Email != "bob@example.com" {
			t.Errorf("email not resolved: %+v", r)
		}
	}
	want := map[auditrm.Kind]int{
		auditrm.KindToolExecuted: 8, auditrm.KindConnectStarted: 2, auditrm.KindConnectExpired: 1, auditrm.KindConnected: 2,
		auditrm.KindRefreshed: 1, auditrm.KindReauthorizationRequired: 1, auditrm.KindDisconnected: 1,
		auditrm.KindAPIKeyMinted: 2, auditrm.KindAPIKeyRotated: 1, auditrm.KindAPIKeyRevoked: 1, auditrm.KindSubjectShredded: 1,
		auditrm.KindCurlSessionMinted: 1, auditrm.KindRequestProxied: 2,
		auditrm.KindSigninLinkIssued: 1, auditrm.KindSignedIn: 1, auditrm.KindOAuthClientRegistered: 1, auditrm.KindOAuthGranted: 1,
		auditrm.KindOAuthTokensRevoked: 1,
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	if len(fx.log.Secrets) < 10 {
		t.Fatalf("the fixture lists only %d secrets", len(fx.log.Secrets))
	}
	for _, s := range fx.log.Secrets {
		for name, out := range map[string]string{"jsonl": jsonl, "csv": csvOut} {
			if strings.Contains(out, s) {
				t.Errorf("the %s export contains the secret %q", name, s)
			}
		}
	}
	var tool auditrm.Record
	for _, r := range recs {
		if r.Kind == auditrm.KindToolExecuted && r.ErrorCode == "" && r.Integration == "github" {
			tool = r
			break
		}
	}
	if tool.Success == nil || !*tool.Success || tool.DurationMS == nil || tool.ArgsSize == nil || len(tool.ArgsSHA256) != 64 ||
		len(tool.ResultSHA256) != 64 || tool.ConnectionVersion != 2 || tool.Via != "api_key" || tool.ClientID != audittest.AdaKey1.String() {
		t.Errorf("tool record incomplete: %+v", tool)
	}
	byKind := func(k auditrm.Kind) []auditrm.Record {
		var out []auditrm.Record
		for _, r := range recs {
			if r.Kind == k {
				out = append(out, r)
			}
		}
		return out
	}
	minted := byKind(auditrm.KindCurlSessionMinted)[0]
	if minted.SessionID != audittest.BobSession || minted.UserID != audittest.Bob || minted.Email != "bob@example.com" ||
		!cmp.Equal(minted.Integrations, []string{"newrelic"}) || minted.Via != "api_key" || minted.ClientID != audittest.BobKey.String() ||
		!minted.ExpiresAt.Equal(minted.Time.Add(15*time.Minute)) {
		t.Errorf("curl session record incomplete: %+v", minted)
	}
	reqs := byKind(auditrm.KindRequestProxied)
	ok, refused := reqs[0], reqs[1]
	if ok.SessionID != audittest.BobSession || ok.Integration != "newrelic" || ok.Method != "POST" || ok.Path != "/graphql" ||
		!cmp.Equal(ok.QueryKeys, []string{"account", "nrql"}) || ok.Status != 200 || ok.ErrorCode != "" ||
		ok.RequestBytes == nil || *ok.RequestBytes != 182 || ok.ResponseBytes == nil || *ok.ResponseBytes != 4096 ||
		ok.DurationMS == nil || *ok.DurationMS != 240 || ok.ConnectionVersion != 3 || ok.EventID.String() != "00000000-0000-4000-8000-00000000c501" {
		t.Errorf("proxied request record incomplete: %+v", ok)
	}
	// Access to Workbench: the sign-in link and its use, the client's registration, Bob's grant, a tool
	// run through it and the revocation of its tokens, each naming the client beside its id.
	bob := func(r auditrm.Record) bool { return r.UserID == audittest.Bob && r.Email == "bob@example.com" }
	if r := byKind(auditrm.KindSigninLinkIssued)[0]; !bob(r) || r.Reason != "cli" || !r.ExpiresAt.Equal(r.Time.Add(15*time.Minute)) {
		t.Errorf("sign-in link record incomplete: %+v", r)
	}
	if r := byKind(auditrm.KindSignedIn)[0]; !bob(r) || r.Via != "signin_link" {
		t.Errorf("sign-in record incomplete: %+v", r)
	}
	if r := byKind(auditrm.KindOAuthClientRegistered)[0]; r.ClientID != audittest.ClientID || r.ClientName != audittest.ClientName || r.UserID != uuid.Nil {
		t.Errorf("client registration record incomplete: %+v", r)
	}
	if r := byKind(auditrm.KindOAuthGranted)[0]; !bob(r) || r.ClientID != audittest.ClientID || r.ClientName != audittest.ClientName || !cmp.Equal(r.Scopes, []string{"mcp"}) {
		t.Errorf("grant record incomplete: %+v", r)
	}
	if r := byKind(auditrm.KindOAuthTokensRevoked)[0]; !bob(r) || r.ClientID != audittest.ClientID || r.ClientName != audittest.ClientName || r.Reason != "user" {
		t.Errorf("revocation record incomplete: %+v", r)
	}
	tools := byKind(auditrm.KindToolExecuted)
	if r := tools[len(tools)-1]; !bob(r) || r.Via != "oauth" || r.ClientID != audittest.ClientID || r.ClientName != audittest.ClientName {
		t.Errorf("tool run through OAuth lacks its client: %+v", r)
	}
	if tool.ClientName != "" {
		t.Errorf("an API key id got a client name: %+v", tool)
	}
	if refused.Status != 405 || refused.ErrorCode != "METHOD_NOT_ALLOWED" || refused.ResponseBytes == nil || *refused.ResponseBytes != 0 {
		t.Errorf("refused request record incomplete: %+v", refused)
	}
	// Zero sizes are written, not left out: an auditor tells "nothing was sent" from "not a request".
	if !strings.Contains(jsonl, `"request_bytes":0,"response_bytes":0`) {
		t.Error("the refused request's zero sizes are missing from the JSON Lines export")
	}
}

func TestReplayCSVInjection(t *testing.T) {
	fx := newFixture(t)
	out, _ := fx.export(t, auditrm.Filter{Email: "ada@example.com"}, auditrm.FormatCSV)
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var tool, reason, hint bool
	for _, row := range rows[1:] {
		for i, cell := range row {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
				t.Errorf("column %s starts with a formula character: %q", rows[0][i], cell)
			}
		}
		tool = tool || row[col["tool"]] == `'=HYPERLINK("http://evil.example","click")`
		reason = reason || row[col["reason"]] == "'-2+3, \"user\" asked by email"
		hint = hint || row[col["account_hint"]] == "'@octocat"
	}
	if !tool || !reason || !hint {
		t.Errorf("defused cells missing (tool %v, reason %v, account hint %v)", tool, reason, hint)
	}
	// JSON Lines are never altered.
	jsonl, _ := fx.export(t, auditrm.Filter{Email: "ada@example.com"}, auditrm.FormatJSONL)
	if !strings.Contains(jsonl, `"tool":"=HYPERLINK(\"http://evil.example\",\"click\")"`) {
		t.Error("the JSON Lines export altered the tool name")
	}
}

func TestDefuseCell(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"plain", "github_list_repos", "github_list_repos"},
		{"equals", "=1+2", "'=1+2"},
		{"plus", "+1", "'+1"},
		{"minus", "-1", "'-1"},
		{"at", "@SUM(A1)", "'@SUM(A1)"},
		{"tab", "\t=1", "'\t=1"},
		{"carriage return", "\r=1", "'\r=1"},
		{"inside", "a=1", "a=1"},
		{"quote already", "'=1", "'=1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := auditrm.DefuseCell(tc.in); got != tc.want {
				t.Errorf("DefuseCell(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestReplayProgress(t *testing.T) {
	be := openSQLite(t)
	store := be.store
	ctx := testCtx(t)
	log := audittest.Build(ctx, t, store, be.vault(t))
	if err := audittest.AppendToolRuns(ctx, store, audittest.Bob, audittest.Day1, 2500, 4); err != nil {
		t.Fatal(err)
	}
	var calls []auditrm.Progress
	emitted := int64(0)
	err := auditrm.Replay(ctx, store, auditrm.Filter{Integration: "utils"}, func(auditrm.Record) error { emitted++; return nil },
		func(p auditrm.Progress) { calls = append(calls, p) })
	if err != nil {
		t.Fatal(err)
	}
	total := int64(log.Events + 2500)
	if len(calls) < 3 {
		t.Fatalf("progress called %d times for %d events, want at least once a batch and once at the end", len(calls), total)
	}
	for i, p := range calls {
		if i > 0 && (p.Scanned < calls[i-1].Scanned || p.Emitted < calls[i-1].Emitted || p.Position.Less(calls[i-1].Position)) {
			t.Errorf("progress went backwards: %+v after %+v", p, calls[i-1])
		}
		if p.Done != (i == len(calls)-1) {
			t.Errorf("call %d of %d has Done %v", i+1, len(calls), p.Done)
		}
	}
	last := calls[len(calls)-1]
	if last.Scanned != total || last.Emitted != emitted || last.Emitted != 2+2500/3 || !last.UserSeen || last.Rate() <= 0 {
		t.Errorf("final progress %+v, want %d scanned and %d emitted", last, total, emitted)
	}

	// A user filter that matches nobody says so.
	var final auditrm.Progress
	if err := auditrm.Replay(ctx, store, auditrm.Filter{Email: "nobody@example.com"}, func(auditrm.Record) error { return nil },
		func(p auditrm.Progress) { final = p }); err != nil {
		t.Fatal(err)
	}
	if !final.Done || final.UserSeen || final.Emitted != 0 {
		t.Errorf("progress for an unknown user: %+v", final)
	}
}

func TestReplayErrors(t *testing.T) {
	fx := newFixture(t)
	ctx := testCtx(t)
	boom := errors.New("disk full")
	cases := []struct {
		name   string
		filter auditrm.Filter
		emit   func(auditrm.Record) error
		check  func(error) bool
	}{
		{"from after to", auditrm.Filter{From: mustTime("2025-03-02T00:00:00Z"), To: mustTime("2025-03-01T00:00:00Z")}, nil,
			func(err error) bool {
				return domain.ErrorCode(err) == domain.CodeInvalid && strings.Contains(err.Error(), "--from")
			}},
		{"empty range", auditrm.Filter{From: mustTime("2025-03-01T00:00:00Z"), To: mustTime("2025-03-01T00:00:00Z")}, nil,
			func(err error) bool { return domain.ErrorCode(err) == domain.CodeInvalid }},
		{"bad email", auditrm.Filter{Email: "not an address"}, nil,
			func(err error) bool {
				return domain.ErrorCode(err) == domain.CodeInvalid && strings.Contains(err.Error(), "--user")
			}},
		{"emit fails", auditrm.Filter{}, func(auditrm.Record) error { return boom },
			func(err error) bool { return errors.Is(err, boom) && strings.Contains(err.Error(), "emit the record") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			emit := tc.emit
			if emit == nil {
				emit = func(auditrm.Record) error { t.Error("emit called"); return nil }
			}
			err := auditrm.Replay(ctx, fx.store, tc.filter, emit, nil)
			if err == nil || !tc.check(err) {
				t.Fatalf("Replay: %v", err)
			}
		})
	}

	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := auditrm.Replay(cctx, fx.store, auditrm.Filter{}, func(auditrm.Record) error { return nil }, nil); !errors.Is(err, context.Canceled) {
			t.Fatalf("Replay on a cancelled context: %v", err)
		}
	})

	t.Run("undecodable audited event", func(t *testing.T) {
		store := openSQLite(t).store
		bad := eventstore.EventData{ID: uuid.New(), Type: "connection.connected", SchemaVersion: 7, Data: json.RawMessage(`{}`)}
		if _, err := store.Append(ctx, "connection-x", eventstore.NoStream, bad); err != nil {
			t.Fatal(err)
		}
		err := auditrm.Replay(ctx, store, auditrm.Filter{}, func(auditrm.Record) error { return nil }, nil)
		if err == nil || !strings.Contains(err.Error(), bad.ID.String()) {
			t.Fatalf("Replay over an undecodable event: %v", err)
		}
	})
}

func TestParseTimes(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		from, to string // wanted, RFC 3339; empty: an error
	}{
		{"date", "2025-03-01", "2025-03-01T00:00:00Z", "2025-03-02T00:00:00Z"},
		{"utc time", "2025-03-01T10:30:00Z", "2025-03-01T10:30:00Z", "2025-03-01T10:30:00Z"},
		{"offset time", "2025-03-01T10:30:00+02:00", "2025-03-01T08:30:00Z", "2025-03-01T08:30:00Z"},
		{"fraction", "2025-03-01T10:30:00.5Z", "2025-03-01T10:30:00.5Z", "2025-03-01T10:30:00.5Z"},
		{"no zone", "2025-03-01T10:30:00", "", ""},
		{"words", "yesterday", "", ""},
		{"bad day", "2025-02-30", "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			from, ferr := auditrm.ParseFrom(tc.in)
			to, terr := auditrm.ParseTo(tc.in)
			if tc.from == "" {
				if ferr == nil || terr == nil || !strings.Contains(ferr.Error(), "--from") || !strings.Contains(terr.Error(), "--to") {
					t.Fatalf("want errors naming the flag, got %v / %v", ferr, terr)
				}
				return
			}
			if ferr != nil || terr != nil {
				t.Fatal(ferr, terr)
			}
			if !from.Equal(mustTime(tc.from)) || !to.Equal(mustTime(tc.to)) {
				t.Errorf("from %s to %s, want %s and %s", from, to, tc.from, tc.to)
			}
		})
	}
}

// The same log replayed from PostgreSQL gives the same records as from SQLite (positions and event
// ids aside, which each backend assigns).
func TestReplayPostgres(t *testing.T) {
	pgBackend := openPostgres(t)
	pgStore := pgBackend.store
	ctx := testCtx(t)
	audittest.Build(ctx, t, pgStore, pgBackend.vault(t))
	if _, err := audittest.AppendCurlSession(ctx, pgStore); err != nil {
		t.Fatal(err)
	}
	if _, _, err := audittest.AppendAccess(ctx, pgStore); err != nil {
		t.Fatal(err)
	}
	fx := newFixture(t)
	strip := func(recs []auditrm.Record) []auditrm.Record {
		for i := range recs {
			recs[i].EventID, recs[i].Position = uuid.Nil, eventstore.Start
		}
		return recs
	}
	for _, f := range []auditrm.Filter{{}, {Email: "bob@example.com"}, {Integration: "github", From: audittest.Day1.Add(time.Hour)}, {Integration: "newrelic"}} {
		var pg []auditrm.Record
		if err := auditrm.Replay(ctx, pgStore, f, func(r auditrm.Record) error { pg = append(pg, r); return nil }, nil); err != nil {
			t.Fatal(err)
		}
		_, lite := fx.export(t, f, auditrm.FormatJSONL)
		if diff := cmp.Diff(strip(lite), strip(pg)); diff != "" {
			t.Errorf("filter %+v: PostgreSQL and SQLite replays differ (-sqlite +postgres):\n%s", f, diff)
		}
	}
}
