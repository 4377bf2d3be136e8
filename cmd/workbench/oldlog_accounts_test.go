package main

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/workbench/workbench/app/connections"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections/connectionsrm"
	"github.com/workbench/workbench/projections/connectorsrm"
)

// testdata/oldlog/cd65aaa.db and cd65aaa.pg.sql are the same story written by the code of commit
// cd65aaa (before a user could hold several accounts of one integration), on SQLite and on PostgreSQL
// (a pg_dump); testdata/oldlog/cd65aaa.gen.go.txt is the program that wrote them. ada connected
// github and google-calendar (OAuth, the calendar token refreshed once), brave-search (an API key) and
// reddit-web (a cookie bundle), connected and disconnected datadog, and left a linear attempt
// pending; Acme (ada, bob) has connector logins and plugin and connector switches at the platform,
// organisation and agent scopes; ten tool executions are recorded. The new code must open each log,
// see every old connection as its owner's default account with the credential it stored, keep every
// switch's meaning, rebuild its read models to the same answers, and still verify the audit chain.
const (
	cd65aaaGitHubAccess = "gho_OldLogAdaGitHubAccess0001"
	cd65aaaCalendar2    = "ya29.OldLogAdaCalendarAccess2"
	cd65aaaBraveKey     = "BSA-OldLogAdaBraveKey0001"
	cd65aaaRedditCookie = "oldlog-reddit-session-0001"
	cd65aaaEvents       = 75
	// cd65aaaMaxXid is the largest transaction id of the PostgreSQL log's events: a server whose
	// counter is below it would hide them as not yet committed, so the test moves it past.
	cd65aaaMaxXid = 967
)

// cd65aaaIDs are the ids of one of the two logs (they were written by two runs).
type cd65aaaIDs struct {
	ada, adaAgent, adaBot, bob, bobBot, acme uuid.UUID
	acmeTools                                string // the connector Acme added (its id has a random suffix)
}

func TestLogOfCd65aaaOpensSQLite(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "oldlog", "cd65aaa.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "wb.db")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	checkCd65aaa(t, path, dir, cd65aaaIDs{
		ada:      uuid.MustParse("070a50b6-d88c-4674-8cfe-75892492e470"),
		adaAgent: uuid.MustParse("8e7c98e0-df74-59e5-b45a-9da328dd0c66"),
		adaBot:   uuid.MustParse("01a250f7-c2d4-7c14-88d6-1a9b3917f341"),
		bob:      uuid.MustParse("122eba93-ae2e-4db2-8441-e0737faf3bed"),
		acme:     uuid.MustParse("01a250f7-c2c8-76a7-9b85-27f91b16ec87"), acmeTools: "mcp_acme-tools_0b3f046f",
		bobBot: uuid.MustParse("01a250f7-c2d6-7c02-a9ba-c0231d2f5be8"),
	})
}

func TestLogOfCd65aaaOpensPostgres(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join("testdata", "oldlog", "cd65aaa.pg.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dbURL := testenv.PostgresURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().Exec(ctx, string(script)).ReadAll(); err != nil {
		conn.Close(ctx)
		t.Fatalf("load cd65aaa.pg.sql: %v", err)
	}
	conn.Close(ctx) // the script empties search_path for its own session
	if conn, err = pgx.Connect(ctx, dbURL); err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for xid := int64(0); xid <= cd65aaaMaxXid; {
		if err := conn.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&xid); err != nil {
			t.Fatalf("move the transaction counter past the log's: %v", err)
		}
	}
	checkCd65aaa(t, dbURL, t.TempDir(), cd65aaaIDs{
		ada:      uuid.MustParse("337c588d-009a-414b-9c40-f8017bb1c3e4"),
		adaAgent: uuid.MustParse("e8a4a22d-d4b6-51ec-a022-e732a4e7b907"),
		adaBot:   uuid.MustParse("01a250f7-f52b-729f-bfb5-ba190ae1beb5"),
		bob:      uuid.MustParse("0ec0c20d-2950-427e-aa23-e594cd3aa304"),
		acme:     uuid.MustParse("01a250f7-f50e-7cee-b20d-95066a3d4d06"), acmeTools: "mcp_acme-tools_41581289",
		bobBot: uuid.MustParse("01a250f7-f531-72e6-9aa7-d6e8ac4da9a4"),
	})
}

// cd65aaaAnswers is what the read models answer about the old log.
type cd65aaaAnswers struct {
	Accounts map[string][]connections.AccountView
	Off      map[string][]string // per agent, the plugin tools Off for it
	// Switches are the explicit connector and plugin switches at the platform, Acme and the two
	// agents: "<scope>/<server>/<tool>" → On.
	Switches map[string]bool
	// Logins are the connector logins at those owners: "<scope>/<server>/<account>" → "<status>,
	// default" or "<status>".
	Logins map[string]string
}

func checkCd65aaa(t *testing.T, dbURL, dir string, ids cd65aaaIDs) {
	env := map[string]string{
		"DATABASE_URL": dbURL, "ENCRYPTION_KEY": oldLogKey, "WORKBENCH_DATA_DIR": dir, "DATABASE_MAX_CONNS": "8",
		"PLUGINS_DIR": filepath.Join("..", "..", "plugins", "examples"), "WORKBENCH_ADMINS": "ada@example.com",
	}
	verify := func(when string) {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), []string{"audit", "verify"}, envFunc(env), &out, &out); err != nil {
			t.Fatalf("audit verify %s: %v\n%s", when, err, out.String())
		}
	}
	verify("of the old log")
	base, m := serveInProcess(t, env)
	waitReady(t, base) // Serve has built the services
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	envs, err := m.Store.ReadAll(ctx, eventstore.Start, 1<<20)
	if err != nil || len(envs) < cd65aaaEvents {
		t.Fatalf("read the log: %d events, %v; want at least the old log's %d", len(envs), err, cd65aaaEvents)
	}
	if err := m.Runner.WaitFor(ctx, envs[len(envs)-1].Position); err != nil {
		t.Fatalf("read models never reached the log's end: %v", err)
	}

	answers := func() cd65aaaAnswers {
		t.Helper()
		acc, err := m.Credentials.Accounts(ctx, ids.ada)
		if err != nil {
			t.Fatal(err)
		}
		delete(acc, "linear") // its attempt's link ran out: a sweep may record that at any moment
		a := cd65aaaAnswers{Accounts: acc, Off: map[string][]string{}, Switches: map[string]bool{}, Logins: map[string]string{}}
		owners := []login.Owner{{Scope: login.ScopePlatform}, {Scope: login.ScopeOrganization, ID: ids.acme},
			{Scope: login.ScopeAgent, ID: ids.adaBot}, {Scope: login.ScopeAgent, ID: ids.bobBot}}
		logins, err := connectorsrm.Reader{DB: m.DB}.Logins(ctx, owners)
		if err != nil {
			t.Fatal(err)
		}
		defaults := connectorsrm.Defaults(logins)
		for _, l := range logins {
			v := string(l.Status)
			if d, ok := defaults[l.ServerID]; ok && d.LoginID == l.LoginID {
				v += ", default"
			}
			a.Logins[string(l.Owner.Scope)+"/"+l.ServerID+"/"+l.Label()] = v
		}
		byTool, err := connectorsrm.Reader{DB: m.DB}.Switches(ctx, owners)
		if err != nil {
			t.Fatal(err)
		}
		for _, sws := range byTool {
			for _, sw := range sws {
				if sw.Rule == connectorsrm.RuleSet {
					a.Switches[string(sw.Owner.Scope)+"/"+sw.ServerID+"/"+sw.Tool] = sw.On
				}
			}
		}
		for name, c := range map[string]executions.Caller{
			"ada": {UserID: ids.ada, AgentID: ids.adaAgent}, "ada-bot": {UserID: ids.ada, AgentID: ids.adaBot}, "bob-bot": {UserID: ids.bob, AgentID: ids.bobBot},
		} {
			off, err := m.Connectors.PluginToolsOff(ctx, c)
			if err != nil {
				t.Fatalf("plugin tools Off for %s: %v", name, err)
			}
			a.Off[name] = slices.Sorted(maps.Keys(off))
		}
		return a
	}
	before := answers()

	// Every old connection is ada's default account, labelled "default", with its status.
	want := map[string]string{"github": "connected", "google-calendar": "connected", "brave-search": "connected", "reddit-web": "connected"}
	if got := slices.Sorted(maps.Keys(before.Accounts)); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Fatalf("ada's integrations with accounts: %v, want %v (datadog was disconnected)", got, slices.Sorted(maps.Keys(want)))
	}
	for name, status := range want {
		acc := before.Accounts[name]
		if len(acc) != 1 || acc[0].Label != "default" || !acc[0].Default || acc[0].Status != status {
			t.Errorf("%s's accounts: %+v, want one default account labelled default, %s", name, acc, status)
		}
	}
	connected, err := m.Credentials.Connected(ctx, ids.ada)
	if err != nil || !connected["github"] || !connected["brave-search"] || connected["datadog"] {
		t.Errorf("connected: %v, %v", connected, err)
	}

	// The stored credentials open and are the ones the old code stored. The OAuth tokens are read from
	// the sealed document (a call would refresh them: their expiry has passed); the API key and the
	// cookie bundle are what a call would send.
	rows, err := connectionsrm.Reader{DB: m.DB}.ForUser(ctx, ids.ada)
	if err != nil {
		t.Fatal(err)
	}
	for name, token := range map[string]string{"github": cd65aaaGitHubAccess, "google-calendar": cd65aaaCalendar2} {
		if len(rows[name]) != 1 {
			t.Fatalf("%s rows: %+v", name, rows[name])
		}
		raw, err := m.Vault.Open(ctx, rows[name][0].State.Credential, connections.Purpose(name))
		if err != nil || !strings.Contains(string(raw), token) {
			t.Errorf("%s's stored credential: %v; want it to hold %s", name, err, token)
		}
	}
	for _, label := range []string{"", "default"} {
		brave, _ := m.Plugins.Integration("brave-search")
		acc, err := m.Credentials.Access(ctx, ids.ada, brave, label)
		if err != nil {
			t.Fatalf("brave-search access (account %q): %v", label, err)
		}
		req, _ := http.NewRequest(http.MethodGet, "https://api.search.brave.com/res/v1/web/search", nil)
		if err := acc.Injector.Inject(ctx, req); err != nil || req.Header.Get("X-Subscription-Token") != cd65aaaBraveKey || acc.Account != "default" {
			t.Errorf("brave-search (account %q) injects %q as account %q, %v", label, req.Header.Get("X-Subscription-Token"), acc.Account, err)
		}
	}
	reddit, _ := m.Plugins.Integration("reddit-web")
	if acc, err := m.Credentials.Access(ctx, ids.ada, reddit, ""); err != nil {
		t.Errorf("reddit-web access: %v", err)
	} else {
		req, _ := http.NewRequest(http.MethodGet, "https://www.reddit.com/api/v1/me", nil)
		if err := acc.Injector.Inject(ctx, req); err != nil || !strings.Contains(req.Header.Get("Cookie"), cd65aaaRedditCookie) {
			t.Errorf("reddit-web sends cookies %q, %v", req.Header.Get("Cookie"), err)
		}
	}
	brave, _ := m.Plugins.Integration("brave-search")
	if _, err := m.Credentials.Access(ctx, ids.ada, brave, "work"); domain.ErrorCode(err) != domain.CodeNotConnected || !strings.Contains(domain.ErrorMessage(err), "default") {
		t.Errorf("an unknown label: %v; want NOT_CONNECTED naming the account that exists", err)
	}

	// The switches keep their meaning: the platform turned utils_time Off for everyone, Acme turned
	// utils_echo Off for its agents, ada-bot turned github_list_repos Off, bob turned github_create_issue
	// (mutating: Off until then) On for bob-bot.
	has := func(agent, tool string) bool { return slices.Contains(before.Off[agent], tool) }
	switch {
	case !has("ada", "utils_time") || has("ada", "utils_echo"):
		t.Errorf("ada's default agent: Off %v; want utils_time Off, utils_echo On", before.Off["ada"])
	case !has("ada-bot", "utils_echo") || !has("ada-bot", "github_list_repos"):
		t.Errorf("ada-bot: Off %v; want utils_echo (Acme) and github_list_repos (its own) Off", before.Off["ada-bot"])
	case has("bob-bot", "github_create_issue") || !has("bob-bot", "github_merge_pull_request"):
		t.Errorf("bob-bot: Off %v; want github_create_issue On (bob's switch) and github_merge_pull_request Off (mutating)", before.Off["bob-bot"])
	}

	// Every explicit switch of the old log is still there, with its state: connector tools' and plugin
	// tools', at the platform, Acme and each agent.
	wantSwitches := map[string]bool{
		"platform/plugin:utils/utils_time": false, "platform/mcp_remote/remote_create_issue": false,
		"organization/plugin:utils/utils_echo": false, "organization/mcp_remote/remote_whoami": false,
		"organization/mcp_remote/remote_wipe_everything": true,
		"agent/plugin:github/github_list_repos":          false, "agent/" + ids.acmeTools + "/acmetools_echo": false,
		"agent/plugin:github/github_create_issue": true,
	}
	if !reflect.DeepEqual(before.Switches, wantSwitches) {
		t.Errorf("explicit switches after the upgrade:\n%v\nwant\n%v", before.Switches, wantSwitches)
	}

	// Every connector login is its owner's default account, labelled "default".
	if len(before.Logins) == 0 {
		t.Error("no connector login after the upgrade")
	}
	for k, v := range before.Logins {
		if !strings.HasSuffix(k, "/default") {
			t.Errorf("login %s (%s): want the account labelled default", k, v)
		}
	}

	// Rebuilt from the log, the read models answer the same.
	for _, name := range []string{"connections", "organizations", "connectors"} {
		if err := m.Runner.Rebuild(ctx, name); err != nil {
			t.Fatalf("rebuild %s: %v", name, err)
		}
	}
	if after := answers(); !reflect.DeepEqual(before, after) {
		b, _ := json.Marshal(before)
		a, _ := json.Marshal(after)
		t.Fatalf("answers changed by a rebuild:\nbefore %s\nafter  %s", b, a)
	}

	// The new code appends to the old log: a second account beside the old one, the old one
	// disconnected, and the chain still verifies.
	if _, err := m.Credentials.ConnectCookies(ctx, ids.ada, "reddit-web", "alt", []connections.Cookie{
		{Name: "reddit_session", Value: "alt-session", Domain: ".reddit.com", Path: "/", Secure: true, Expires: time.Now().Add(24 * time.Hour)},
	}); err != nil {
		t.Fatalf("a second reddit-web account: %v", err)
	}
	if err := m.Credentials.Disconnect(ctx, ids.ada, "reddit-web", ""); err != nil {
		t.Fatalf("disconnect the old default account: %v", err)
	}
	acc, err := m.Credentials.Accounts(ctx, ids.ada)
	if err != nil || len(acc["reddit-web"]) != 1 || acc["reddit-web"][0].Label != "alt" || !acc["reddit-web"][0].Default {
		t.Fatalf("reddit-web accounts after the disconnect: %+v, %v; want alt, the default now", acc["reddit-web"], err)
	}
	verify("after the new code appended to the old log")
}
