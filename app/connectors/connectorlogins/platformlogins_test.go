package connectorlogins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/platformkeys"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/platformcall"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/projections/connectorsrm"
	"github.com/workbench/workbench/projections/platform"
)

const (
	adminEmail = "admin@example.com"
	platKey    = "plat-key-7f3a9c2e51"
)

var admin = platformkeys.Principal{ID: uuid.MustParse("aaaaaaaa-0000-4000-8000-000000000001"), Email: adminEmail}

// platformFS adds "webplat": the test remote as a token connector that runs on its own platform key
// (auth.instance {own: true}).
func platformFS(u string) map[string]string {
	return map[string]string{"webplat/connector.json": fmt.Sprintf(`{"slug":"webplat","display_name":"Web on the platform","endpoint":{"url":%q},
		"auth":{"kind":"token","instance":{"own":true}}}`, u)}
}

func (w *world) platformLogin() (connectorsrm.Login, bool) {
	w.T.Helper()
	ls, err := w.Reader.Logins(w.Ctx, []login.Owner{{Scope: login.ScopePlatform}})
	if err != nil {
		w.T.Fatal(err)
	}
	for _, l := range ls {
		if l.ServerID == "mcp_webplat" {
			return l, true
		}
	}
	return connectorsrm.Login{}, false
}

func (w *world) setKey(token string) {
	w.T.Helper()
	if _, err := w.Keys.Set(w.Ctx, admin, "connector:webplat", map[string]string{"token": token}); err != nil {
		w.T.Fatalf("set key: %v", err)
	}
}

func TestPlatformLoginFollowsItsKeySQLite(t *testing.T) { testPlatformLogin(t, false) }

func TestPlatformLoginFollowsItsKeyPostgres(t *testing.T) { testPlatformLogin(t, true) }

func testPlatformLogin(t *testing.T, pg bool) {
	r := newRemote(t, platKey)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}})

	// At boot with no key: no platform login, no tools.
	if err := w.Svc.SyncPlatformLogins(w.Ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := w.platformLogin(); ok {
		t.Fatal("a platform login without a key")
	}
	// The key is set: the sync after the write connects the platform login and lists its tools with
	// the key; every scope inherits the platform's switches.
	w.setKey(platKey)
	l, ok := w.platformLogin()
	if !ok || l.Status != login.StatusConnected || l.Owner.Scope != login.ScopePlatform || l.ListedAt.IsZero() {
		t.Fatalf("platform login = %+v, %v", l, ok)
	}
	got := w.Offered(agent)
	if !slices.Contains(got, "webplat_echo") || !slices.Contains(got, "webplat_whoami") {
		t.Fatalf("offered = %v", got)
	}
	// No event holds the key in clear, and the login holds none of it.
	all, err := w.Store.ReadAll(w.Ctx, eventstore.Start, 100000)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range all {
		if strings.Contains(string(e.Data), platKey) {
			t.Fatalf("event %s holds the key in clear: %s", e.Type, e.Data)
		}
	}
	// A call uses the key, and its result names it only by its label.
	o := w.Run(agent, "webplat_whoami", `{"text":"x"}`)
	if o.Code != "" || !strings.Contains(string(o.Result), "token is [REDACTED:platform_webplat_token]") || strings.Contains(string(o.Result), platKey) {
		t.Fatalf("whoami = %+v (%s)", o, o.Result)
	}
	// The sync again changes nothing.
	before := len(all)
	if err := w.Svc.SyncPlatformLogins(w.Ctx); err != nil {
		t.Fatal(err)
	}
	if after, _ := w.Store.ReadAll(w.Ctx, eventstore.Start, 100000); len(after) != before+countTypes(after[before:], "execution.tool_executed", "platformcall.counted") {
		t.Fatalf("an idle sync appended %d events", len(after)-before)
	}
	// A platform login is neither removed nor given settings by an operator.
	if err := w.Svc.Remove(w.Ctx, user, l.LoginID); codeOf(err) != domain.CodeInvalid {
		t.Fatalf("remove platform login: %v", err)
	}
	if _, err := w.Svc.SaveSettings(w.Ctx, user, l.LoginID, []byte(`{}`)); codeOf(err) != domain.CodeInvalid {
		t.Fatalf("settings of platform login: %v", err)
	}
	// The organisation turns one tool Off: its agents lose it, the platform keeps it.
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeOrganization, org), "mcp_webplat", "webplat_echo", false); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(w.Offered(agent), "webplat_echo") {
		t.Fatal("echo still offered after the organisation turned it Off")
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeOrganization, org), "mcp_webplat", "webplat_echo", true); err != nil {
		t.Fatal(err)
	}
	// The organisation's own login overrides: it calls with its own key, and is not counted.
	const own = "own-key-0123456789"
	r.Accept(own)
	counted := len(w.EventsOf(platformcall.TypeCounted))
	if _, err := w.Svc.Connect(w.Ctx, user, connectorsConnect("mcp_webplat", owner(login.ScopeOrganization, org), own)); err != nil {
		t.Fatal(err)
	}
	o = w.Run(agent, "webplat_whoami", `{"text":"x"}`)
	if o.Code != "" || !strings.Contains(string(o.Result), "token is [REDACTED]") {
		t.Fatalf("whoami on the own login = %+v (%s)", o, o.Result)
	}
	if n := len(w.EventsOf(platformcall.TypeCounted)); n != counted {
		t.Fatalf("a call on the own login was counted (%d, was %d)", n, counted)
	}
	ls, _ := w.Reader.Logins(w.Ctx, []login.Owner{owner(login.ScopeOrganization, org)})
	if err := w.Svc.Remove(w.Ctx, user, ls[0].LoginID); err != nil {
		t.Fatal(err)
	}
	// The key is removed: the login is disconnected and a run leaves its tools out instead of failing.
	if err := w.Keys.Remove(w.Ctx, admin, "connector:webplat"); err != nil {
		t.Fatal(err)
	}
	if l, _ := w.platformLogin(); l.Status != login.StatusDisconnected {
		t.Fatalf("after removal: %+v", l)
	}
	for _, name := range w.Offered(agent) {
		if strings.HasPrefix(name, "webplat_") {
			t.Fatalf("offered %s without a key", name)
		}
	}
	if o := w.Run(agent, "webplat_echo", `{"text":"x"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("echo without a key: %+v", o)
	}
	// Set again: the same login connects again.
	w.setKey(platKey)
	if l2, _ := w.platformLogin(); l2.Status != login.StatusConnected || l2.LoginID != l.LoginID {
		t.Fatalf("after setting again: %+v", l2)
	}
}

func countTypes(envs []eventstore.Envelope, types ...string) int {
	n := 0
	for _, e := range envs {
		if slices.Contains(types, e.Type) {
			n++
		}
	}
	return n
}

// A catalog event (any connector.* type) makes the sync run, with no restart: here a key is set with
// the sync after writes turned off, and the sync runs when the catalog changes.
func TestPlatformLoginSyncsAfterACatalogChange(t *testing.T) {
	r := newRemote(t, platKey)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}, NoSyncAfterWrite: true})
	ctx, cancel := context.WithCancel(w.Ctx)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Svc.RunPlatformSync(ctx) }()
	defer func() { cancel(); <-done }()
	if err := w.Runner.AfterApply(connectorsrm.Name, w.Svc.CatalogChanged); err != nil {
		t.Fatal(err)
	}
	w.setKey(platKey)
	if _, ok := w.platformLogin(); ok {
		t.Fatal("the sync ran after the write although the test turned it off")
	}
	// The remote connector's manifest changes in the catalog (an admin edit, a new version).
	srv, err := w.Reader.Server(w.Ctx, "mcp_remote")
	if err != nil {
		t.Fatal(err)
	}
	ev := connectordom.Installed{ID: srv.ID, Slug: srv.Slug, ToolPrefix: srv.ToolPrefix, Manifest: srv.Manifest, Digest: "changed", Source: "core", At: time.Now().UTC()}
	typ, ver, data, err := eventstore.NewJSONCodec(connectordom.Events()...).Encode(ev)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Store.Append(w.Ctx, connectordom.StreamName(srv.ID), eventstore.Any,
		eventstore.EventData{ID: uuid.New(), Type: typ, SchemaVersion: ver, Data: data, Metadata: eventstore.Metadata{Actor: "test", Time: time.Now().UTC()}}); err != nil {
		t.Fatal(err)
	}
	// Wait (bounded) for the sync the catalog event asked for.
	deadline := time.Now().Add(30 * time.Second)
	for {
		if l, ok := w.platformLogin(); ok && l.Status == login.StatusConnected {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no platform login after the catalog change")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Caps: calls on a platform login count per organisation, connector and UTC month; a call past the
// cap never reaches the provider and answers the limit text; a new month starts from zero.
func TestPlatformCallsAreCappedPerUTCMonth(t *testing.T) {
	r := newRemote(t, platKey)
	caps := func(slug string) (int, bool) {
		if slug == "webplat" {
			return 2, true
		}
		return 0, false
	}
	w := newWorldAt(t, worldOptions{FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}, MonthlyCap: caps},
		time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC))
	w.setKey(platKey)
	for i := 0; i < 2; i++ {
		if o := w.Run(agent, "webplat_echo", `{"text":"hi"}`); o.Code != "" {
			t.Fatalf("call %d: %+v", i+1, o)
		}
	}
	if n := r.Calls.Load(); n != 2 {
		t.Fatalf("provider saw %d calls", n)
	}
	o := w.Run(agent, "webplat_echo", `{"text":"hi"}`)
	if o.Code == "" || o.Message != "ERROR: platform limit reached: webplat calls this month" {
		t.Fatalf("capped call = %+v", o)
	}
	if n := r.Calls.Load(); n != 2 {
		t.Fatalf("the capped call reached the provider (%d calls)", n)
	}
	// An hour later it is January (UTC): the count starts again.
	w.Advance(time.Hour)
	if o := w.Run(agent, "webplat_echo", `{"text":"hi"}`); o.Code != "" {
		t.Fatalf("first call of the month: %+v", o)
	}
	if n := r.Calls.Load(); n != 3 {
		t.Fatalf("provider saw %d calls", n)
	}
	// The read model holds the counts and is rebuilt to the same from the log.
	want := map[string]int{"2026-12": 2, "2027-01": 1}
	check := func(when string) {
		t.Helper()
		if err := w.Runner.CatchUp(w.Ctx, platform.CallsName); err != nil {
			t.Fatal(err)
		}
		usage, err := platform.Reader{DB: w.DB}.Usage(w.Ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int{}
		for _, u := range usage {
			if u.OrgID != org || u.ServerID != "mcp_webplat" || u.Slug != "webplat" {
				t.Fatalf("%s: usage row %+v", when, u)
			}
			got[u.Month] = u.Calls
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: usage %v, want %v", when, got, want)
		}
	}
	check("live")
	if err := w.Runner.Rebuild(w.Ctx, platform.CallsName); err != nil {
		t.Fatal(err)
	}
	check("rebuilt")
}

func connectorsConnect(server string, o login.Owner, tok string) connectors.ConnectRequest {
	return connectors.ConnectRequest{ServerID: server, Owner: o, Fields: map[string]string{"token": tok}}
}

// newWorldAt is newWorld with the clock starting at now.
func newWorldAt(t *testing.T, o worldOptions, now time.Time) *world {
	t.Helper()
	o.Now = now
	return newWorld(t, o)
}

// Concurrent calls never overshoot the cap: each count is appended with the version it read, so of
// eight calls racing for three places exactly three reach the provider.
func TestConcurrentPlatformCallsStopAtTheCap(t *testing.T) {
	r := newRemote(t, platKey)
	caps := func(string) (int, bool) { return 3, true }
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}, MonthlyCap: caps})
	w.setKey(platKey)
	calls := make([]executions.Call, 8)
	for i := range calls {
		calls[i] = executions.Call{Tool: "webplat_echo", Args: json.RawMessage(`{"text":"hi"}`)}
	}
	outs := w.Executions.Run(w.Ctx, executions.Caller{UserID: user, Via: "api_key", AgentID: agent}, calls)
	ok, capped := 0, 0
	for _, o := range outs {
		switch {
		case o.Code == "":
			ok++
		case o.Message == platformcall.LimitMessage("webplat"):
			capped++
		default:
			t.Errorf("outcome %+v", o)
		}
	}
	if ok != 3 || capped != 5 || r.Calls.Load() != 3 {
		t.Fatalf("%d ran, %d capped, provider saw %d; want 3, 5, 3", ok, capped, r.Calls.Load())
	}
}

// Calls on an uncapped connector are recorded without reading the month's stream or racing on it:
// sixteen at once all run (none answers "try again"), and the read model counts every one of them.
func TestConcurrentUncappedPlatformCallsAllCount(t *testing.T) {
	r := newRemote(t, platKey)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), platformFS(r.URL())), Admins: []string{adminEmail}})
	w.setKey(platKey)
	calls := make([]executions.Call, 16)
	for i := range calls {
		calls[i] = executions.Call{Tool: "webplat_echo", Args: json.RawMessage(`{"text":"hi"}`)}
	}
	for _, o := range w.Executions.Run(w.Ctx, executions.Caller{UserID: user, Via: "api_key", AgentID: agent}, calls) {
		if o.Code != "" {
			t.Fatalf("an uncapped call failed: %+v", o)
		}
	}
	if n := r.Calls.Load(); n != 16 {
		t.Fatalf("provider saw %d calls, want 16", n)
	}
	if err := w.Runner.CatchUp(w.Ctx, platform.CallsName); err != nil {
		t.Fatal(err)
	}
	usage, err := platform.Reader{DB: w.DB}.Usage(w.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(usage) != 1 || usage[0].Calls != 16 {
		t.Fatalf("usage = %+v, want one row of 16 calls", usage)
	}
}
