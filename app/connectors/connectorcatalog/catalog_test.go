package connectorcatalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/connectordom"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/plugins/connector"
)

// serviceWith is a second service on the world's node with other options: no loopback, a resolver
// of the test, a cap on an organisation's servers.
func (w *world) serviceWith(resolver *connectorstest.Resolver, maxServers int) *connectors.Service {
	w.T.Helper()
	svc, err := connectors.New(connectors.Options{Store: w.Store, DB: w.DB, Projections: w.Runner, Vault: w.Vault, Pool: w.Pool, Scopes: w.Scopes,
		Resolver: resolver, MaxMCPServers: maxServers, Reserved: func(p string) bool { return p == "github" }})
	if err != nil {
		w.T.Fatal(err)
	}
	return svc
}

func mustCode(t *testing.T, what string, err error, code domain.Code, says string) {
	t.Helper()
	if domain.ErrorCode(err) != code || !strings.Contains(domain.ErrorMessage(err), says) {
		t.Fatalf("%s: %v, want %s saying %q", what, err, code, says)
	}
}

// An organisation's own servers: owners and admins add, edit and delete them (a member is refused, a
// stranger does not see the organisation); a slug is unique per owner, an organisation's slug is
// never a platform connector's and the reverse, each refusal naming the other side; prefixes are
// unique on the box; another organisation's id is a 404 at its routes, at Connect and at a switch;
// Connect fills a blank display name from the server's initialize reply; delete removes the logins
// and the switches that name the server, as events.
func TestOrgServersSQLite(t *testing.T) { testOrgServers(t, false) }

func TestOrgServersPostgres(t *testing.T) { testOrgServers(t, true) }

func testOrgServers(t *testing.T, pg bool) {
	const tok = "tok-org-server-4242"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})
	orgB, agentB, bob, member := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	w.Scopes.AddAgent(orgB, agentB)
	w.Scopes.SetRole(orgB, bob, organization.RoleOwner)
	w.Scopes.SetRole(org, member, organization.RoleMember)
	add := func(who, in uuid.UUID, slug string) (connectors.CatalogEntry, error) {
		return w.Svc.AddOrgServer(w.Ctx, who, in, connectors.AddRequest{Slug: slug, URL: r.URL(), Auth: connectors.AuthSpec{Kind: "token"}})
	}

	_, err := add(user, org, "remote")
	mustCode(t, "an organisation taking a platform slug", err, domain.CodeConflict, "platform connector")
	_, err = add(member, org, "wiki")
	mustCode(t, "a member adds", err, domain.CodeForbidden, "owners and admins")
	_, err = add(bob, org, "wiki")
	mustCode(t, "a stranger adds", err, domain.CodeNotFound, "no organization")
	wiki, err := add(user, org, "wiki")
	if err != nil {
		t.Fatal(err)
	}
	if !wiki.Own || wiki.OwnerOrgID != org.String() || wiki.ToolPrefix != "wiki" || !wiki.Enabled || wiki.Source != "local" {
		t.Fatalf("added = %+v", wiki)
	}
	_, err = add(user, org, "wiki")
	mustCode(t, "the same slug twice in one organisation", err, domain.CodeConflict, "this organisation")
	wikiB, err := add(bob, orgB, "wiki")
	if err != nil || wikiB.ToolPrefix != "wiki2" {
		t.Fatalf("another organisation, same slug: %+v %v (the prefix is unique on the box)", wikiB, err)
	}
	_, err = w.Svc.AddServer(w.Ctx, "admin", connectors.AddRequest{Slug: "wiki", URL: r.URL(), Auth: connectors.AuthSpec{Kind: "none"}})
	mustCode(t, "the platform taking an organisation's slug", err, domain.CodeConflict, "organisation's own server")

	// Each organisation sees the platform's servers and its own.
	ids := func(who, in uuid.UUID) []string {
		t.Helper()
		es, err := w.Svc.Catalog(w.Ctx, who, in)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range es {
			out = append(out, e.ID)
		}
		return out
	}
	if got := ids(user, uuid.Nil); !slices.Equal(got, []string{"mcp_remote", wiki.ID}) {
		t.Fatalf("the home organisation's catalog = %v", got)
	}
	if got := ids(bob, orgB); !slices.Equal(got, []string{"mcp_remote", wikiB.ID}) {
		t.Fatalf("organisation B's catalog = %v", got)
	}
	if _, err := w.Svc.Catalog(w.Ctx, bob, org); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("a stranger reads the catalog of an organisation: %v", err)
	}

	// Another organisation's id is a 404 everywhere.
	agentOwner := owner(login.ScopeAgent, agent)
	_, err = w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: wikiB.ID, Owner: agentOwner, Fields: map[string]string{"token": tok}})
	mustCode(t, "connect to another organisation's server", err, domain.CodeNotFound, wikiB.ID)
	err = w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeGuild, guild), wikiB.ID, "wiki2_echo", true)
	mustCode(t, "a switch on another organisation's server", err, domain.CodeNotFound, wikiB.ID)
	_, err = w.Svc.EditOrgServer(w.Ctx, user, org, wikiB.ID, connectors.ServerEdit{Copy: map[string]json.RawMessage{"description": json.RawMessage(`"mine now"`)}})
	mustCode(t, "edit another organisation's server", err, domain.CodeNotFound, wikiB.ID)
	err = w.Svc.DeleteOrgServer(w.Ctx, user, org, wikiB.ID)
	mustCode(t, "delete another organisation's server", err, domain.CodeNotFound, wikiB.ID)
	_, err = w.Svc.EditServer(w.Ctx, "admin", wikiB.ID, connectors.ServerEdit{Enabled: new(bool)})
	mustCode(t, "the admin routes on an organisation's server", err, domain.CodeNotFound, wikiB.ID)
	err = w.Svc.DeleteOrgServer(w.Ctx, member, org, wiki.ID)
	mustCode(t, "a member deletes", err, domain.CodeForbidden, "owners and admins")

	// Connect fills the blank display name from serverInfo.
	res, err := w.Svc.Connect(w.Ctx, user, connectors.ConnectRequest{ServerID: wiki.ID, Owner: agentOwner, Fields: map[string]string{"token": tok}})
	if err != nil {
		t.Fatal(err)
	}
	es, _ := w.Svc.Catalog(w.Ctx, user, org)
	if es[1].DisplayName != "fake-remote" {
		t.Fatalf("display name after connect = %q", es[1].DisplayName)
	}
	if got := w.Offered(agent); !slices.Contains(got, "wiki_echo") {
		t.Fatalf("offered = %v", got)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeGuild, guild), wiki.ID, "wiki_whoami", true); err != nil {
		t.Fatal(err)
	}
	// An edit: copy, and a null clearing it.
	e, err := w.Svc.EditOrgServer(w.Ctx, user, org, wiki.ID, connectors.ServerEdit{Copy: map[string]json.RawMessage{"description": json.RawMessage(`"Our wiki"`)}})
	if err != nil || e.Description != "Our wiki" || e.DisplayName != "fake-remote" {
		t.Fatalf("edit: %+v %v", e, err)
	}
	if e, err = w.Svc.EditOrgServer(w.Ctx, user, org, wiki.ID, connectors.ServerEdit{Copy: map[string]json.RawMessage{"description": json.RawMessage(`null`)}}); err != nil || e.Description != "" {
		t.Fatalf("clear: %+v %v", e, err)
	}

	// Delete: the login, the switches of every scope, the row and its claim, each an event.
	if err := w.Svc.DeleteOrgServer(w.Ctx, user, org, wiki.ID); err != nil {
		t.Fatal(err)
	}
	if n := len(w.EventsOf(login.TypeRemoved)); n != 1 {
		t.Fatalf("%d login.removed", n)
	}
	if n := len(w.EventsOf(login.TypeSwitchesCleared)); n != 2 {
		t.Fatalf("%d toolswitch.cleared (the agent's and the guild's)", n)
	}
	if n := len(w.EventsOf(connectordom.TypeRemoved)); n != 1 {
		t.Fatalf("%d connector.removed", n)
	}
	if n := len(w.EventsOf(connectordom.TypeSlugReleased)); n != 1 {
		t.Fatalf("%d connector.slug_released", n)
	}
	var left int
	if err := w.DB.QueryRow(`SELECT (SELECT COUNT(*) FROM mcp_tool_switches WHERE server_id = $1) + (SELECT COUNT(*) FROM mcp_connections WHERE server_id = $1)
		+ (SELECT COUNT(*) FROM connectors WHERE id = $1)`, wiki.ID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rows name the deleted server (%v)", left, err)
	}
	if _, err := w.Reader.Login(w.Ctx, res.Login.ID); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("the login stays: %v", err)
	}
	if got := w.Offered(agent); slices.Contains(got, "wiki_echo") {
		t.Fatalf("offered after delete = %v", got)
	}
	// The slug is free again; the cap counts an organisation's servers.
	capped := w.serviceWith(nil, 1)
	if _, err := capped.AddOrgServer(w.Ctx, user, org, connectors.AddRequest{Slug: "wiki", URL: "https://93.184.216.34/mcp", Auth: connectors.AuthSpec{Kind: "oauth"}}); err != nil {
		t.Fatalf("re-add after delete: %v", err)
	}
	_, err = capped.AddOrgServer(w.Ctx, user, org, connectors.AddRequest{Slug: "docs", URL: "https://93.184.216.34/mcp", Auth: connectors.AuthSpec{Kind: "none"}})
	mustCode(t, "past maxMcpServers", err, domain.CodeConflict, "maxMcpServers 1")
	if _, err := capped.AddOrgServer(w.Ctx, bob, orgB, connectors.AddRequest{Slug: "docs", URL: "https://93.184.216.34/mcp", Auth: connectors.AuthSpec{Kind: "none"}}); err == nil {
		t.Fatal("organisation B is at the cap too (wiki): the add passed")
	}
	_, err = capped.AddOrgServer(w.Ctx, user, org, connectors.AddRequest{Slug: "cfg", URL: "https://93.184.216.34/mcp", Auth: connectors.AuthSpec{Kind: "oauth", Strategy: "configured"}})
	mustCode(t, "an organisation's configured OAuth", err, domain.CodeUnprocessable, "dynamically")
}

// A server added by hand is on public HTTPS: the save-time address check refuses every hostile URL,
// each with a 422 naming the problem, and nothing is recorded.
func TestAddByHandRefusesHostileURLs(t *testing.T) {
	w := newWorld(t, worldOptions{FS: manifestFS("https://93.184.216.34/mcp", nil)})
	res := &connectorstest.Resolver{Answers: map[string][]netip.Addr{
		"public.example": {netip.MustParseAddr("93.184.216.34")},
		"inward.example": {netip.MustParseAddr("10.0.0.7")},
		"meta.example":   {netip.MustParseAddr("169.254.169.254")},
		"six.example":    {netip.MustParseAddr("fd00::1")},
	}}
	strict := w.serviceWith(res, 0)
	for _, c := range []struct{ name, url, says string }{
		{"empty", "", "url is required"},
		{"not a URL", "not a url", "not an absolute URL"},
		{"plain http", "http://public.example/mcp", "https"},
		{"another scheme", "ftp://public.example/mcp", "scheme"},
		{"user info", "https://user:pw@public.example/mcp", "user information"},
		{"loopback", "https://127.0.0.1/mcp", "url"},
		{"loopback v6", "https://[::1]/mcp", "url"},
		{"localhost", "https://localhost/mcp", "url"},
		{"private", "https://10.1.2.3/mcp", "url"},
		{"private 192.168", "https://192.168.1.1/mcp", "url"},
		{"metadata", "https://169.254.169.254/latest", "url"},
		{"metadata name", "https://metadata.google.internal/", "url"},
		{"decimal loopback", "https://2130706433/mcp", "url"},
		{"octal loopback", "https://0177.0.0.1/mcp", "url"},
		{"a name resolving inward", "https://inward.example/mcp", "url"},
		{"a name resolving to metadata", "https://meta.example/mcp", "url"},
		{"a name resolving to a private v6", "https://six.example/mcp", "url"},
		{"a name that does not resolve", "https://nowhere.example/mcp", "url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := strict.AddOrgServer(w.Ctx, user, org, connectors.AddRequest{Slug: "hostile", URL: c.url, Auth: connectors.AuthSpec{Kind: "none"}})
			mustCode(t, c.url, err, domain.CodeUnprocessable, c.says)
			_, err = strict.AddServer(w.Ctx, "admin", connectors.AddRequest{Slug: "hostile", URL: c.url, Auth: connectors.AuthSpec{Kind: "none"}})
			mustCode(t, c.url, err, domain.CodeUnprocessable, c.says)
		})
	}
	if n := len(w.EventsOf(connectordom.TypeSlugClaimed)) + len(w.EventsOf(connectordom.TypeAdded)); n != 0 {
		t.Fatalf("%d events after refusals", n)
	}
	for _, c := range []struct {
		name string
		req  connectors.AddRequest
		says string
	}{
		{"bad slug", connectors.AddRequest{Slug: "Not A Slug", URL: "https://public.example/mcp", Auth: connectors.AuthSpec{Kind: "none"}}, "slug"},
		{"no auth", connectors.AddRequest{Slug: "ok", URL: "https://public.example/mcp"}, "auth"},
		{"unknown auth", connectors.AddRequest{Slug: "ok", URL: "https://public.example/mcp", Auth: connectors.AuthSpec{Kind: "basic"}}, "auth"},
		{"long name", connectors.AddRequest{Slug: "ok", URL: "https://public.example/mcp", DisplayName: strings.Repeat("x", 81), Auth: connectors.AuthSpec{Kind: "none"}}, "display_name"},
	} {
		_, err := strict.AddServer(w.Ctx, "admin", c.req)
		mustCode(t, c.name, err, domain.CodeUnprocessable, c.says)
	}
	e, err := strict.AddServer(w.Ctx, "admin", connectors.AddRequest{Slug: "github", URL: "https://public.example/mcp", DisplayName: "GH", Auth: connectors.AuthSpec{Kind: "oauth", Strategy: "configured", Provider: "github"}})
	if err != nil || e.ToolPrefix != "github2" || e.OAuthStrategy != "configured" || !e.Local || e.SetUp || e.PlatformKey != "integration:github" {
		t.Fatalf("a public https server: %+v %v (the reserved prefix is skipped; its configured client is not set up)", e, err)
	}
}

// The instance admin's overrides: copy into overrides with null clearing, read through the one
// loader; per-tool description and schema taken at the next listing; a tool's default deciding for a
// new login (rule 1); and the export, overrides applied, loaded again by the loader.
func TestAdminOverridesSQLite(t *testing.T) { testAdminOverrides(t, false) }

func TestAdminOverridesPostgres(t *testing.T) { testAdminOverrides(t, true) }

func testAdminOverrides(t *testing.T, pg bool) {
	const tok = "tok-admin-overrides-77"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{Postgres: pg, FS: manifestFS(r.URL(), nil)})
	copyEdit := func(kv map[string]string) connectors.ServerEdit {
		e := connectors.ServerEdit{Copy: map[string]json.RawMessage{}}
		for k, v := range kv {
			e.Copy[k] = json.RawMessage(v)
		}
		return e
	}
	e, err := w.Svc.EditServer(w.Ctx, "admin", "mcp_remote", copyEdit(map[string]string{"description": `"Edited copy"`, "limitations": `"No deletes"`, "display_name": `"Remote (edited)"`}))
	if err != nil {
		t.Fatal(err)
	}
	if e.Description != "Edited copy" || e.Limitations != "No deletes" || e.DisplayName != "Remote (edited)" || e.Original["description"] != "A remote MCP server in the tests." {
		t.Fatalf("after the edit: %+v", e)
	}
	e, err = w.Svc.EditServer(w.Ctx, "admin", "mcp_remote", copyEdit(map[string]string{"display_name": `null`}))
	if err != nil || e.DisplayName != "Remote" || e.Description != "Edited copy" {
		t.Fatalf("null clears one key: %+v %v", e, err)
	}
	if string(e.Overrides) != `{"description":"Edited copy","limitations":"No deletes"}` {
		t.Fatalf("overrides = %s", e.Overrides)
	}
	for _, c := range []struct {
		name string
		edit connectors.ServerEdit
		code domain.Code
		says string
	}{
		{"an endpoint of a shipped connector", connectors.ServerEdit{URL: new(string)}, domain.CodeUnprocessable, "come from its manifest"},
		{"an unknown key", copyEdit(map[string]string{"slug": `"x"`}), domain.CodeUnprocessable, "slug"},
		{"a number", copyEdit(map[string]string{"description": `5`}), domain.CodeUnprocessable, "string or null"},
		{"a blank name", copyEdit(map[string]string{"display_name": `" "`}), domain.CodeUnprocessable, "blank"},
	} {
		_, err := w.Svc.EditServer(w.Ctx, "admin", "mcp_remote", c.edit)
		mustCode(t, c.name, err, c.code, c.says)
	}
	if _, err := w.Svc.EditServer(w.Ctx, "admin", "mcp_nope", copyEdit(map[string]string{"description": `"x"`})); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("an unknown id: %v", err)
	}

	// Per-tool overrides.
	tool := func(name string, kv map[string]string) error {
		edit := map[string]json.RawMessage{}
		for k, v := range kv {
			edit[k] = json.RawMessage(v)
		}
		_, err := w.Svc.SetToolOverrides(w.Ctx, "admin", "mcp_remote", name, edit)
		return err
	}
	mustCode(t, "a schema that is not one", tool("echo", map[string]string{"input_schema": `{"type":12}`}), domain.CodeUnprocessable, "input_schema")
	mustCode(t, "a schema that is not an object", tool("echo", map[string]string{"input_schema": `[1]`}), domain.CodeUnprocessable, "input_schema")
	mustCode(t, "a schema loading a document", tool("echo", map[string]string{"input_schema": `{"$ref":"https://example.com/s.json"}`}), domain.CodeUnprocessable, "input_schema")
	mustCode(t, "a bad default", tool("echo", map[string]string{"default": `"maybe"`}), domain.CodeUnprocessable, "default")
	mustCode(t, "an unknown field", tool("echo", map[string]string{"mutating": `true`}), domain.CodeUnprocessable, "mutating")
	schema := `{"type":"object","properties":{"text":{"type":"string","maxLength":10}},"required":["text"]}`
	if err := tool("echo", map[string]string{"description": `"Echo, as the admin wrote it."`, "input_schema": schema}); err != nil {
		t.Fatal(err)
	}
	if err := tool("whoami", map[string]string{"default": `"on"`}); err != nil { // the policy says Off
		t.Fatal(err)
	}
	if err := tool("create_issue", map[string]string{"default": `false`, "description": `"Open an issue (edited)."`}); err != nil {
		t.Fatal(err)
	}
	// A new login: the listing takes the copy and schema; the defaults decide first.
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)
	d, err := w.Svc.Detail(w.Ctx, user, res.Login.ID, agent)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]connectors.ToolView{}
	for _, tv := range d.Tools {
		byName[tv.Name] = tv
	}
	if tv := byName["remote_echo"]; tv.Description != "Echo, as the admin wrote it." || !strings.Contains(string(tv.InputSchema), `"maxLength":10`) {
		t.Fatalf("echo as listed: %+v", tv)
	}
	if tv := byName["remote_whoami"]; !tv.On || tv.Rule != connector.RuleAdminDefault {
		t.Fatalf("whoami: %+v (the admin's default On wins over the policy)", tv)
	}
	if tv := byName["remote_create_issue"]; tv.On || tv.Rule != connector.RuleAdminDefault {
		t.Fatalf("create_issue: %+v", tv)
	}
	// A null clears; the listed tool takes it at its next listing.
	if err := tool("echo", map[string]string{"description": `null`, "input_schema": `null`}); err != nil {
		t.Fatal(err)
	}
	if err := w.Svc.Relist(w.Ctx, "test", res.Login.ID); err != nil {
		t.Fatal(err)
	}
	ts, _ := w.Reader.Tools(w.Ctx, res.Login.ID)
	for _, x := range ts {
		if x.Name == "remote_echo" && x.Description != "Echo the text back." {
			t.Fatalf("echo after clearing: %q", x.Description)
		}
	}
	a, err := w.Svc.AdminServer(w.Ctx, "mcp_remote")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(a.Overrides), `"echo"`) || !strings.Contains(string(a.Overrides), `"create_issue"`) {
		t.Fatalf("overrides after clearing echo: %s", a.Overrides)
	}
	if n := len(w.EventsOf(connectordom.TypeToolOverridesSet)); n != 4 {
		t.Fatalf("%d connector.tool_overrides_set", n)
	}

	// The export: connector.json with the overrides applied, which the loader reads again.
	raw, err := w.Svc.Export(w.Ctx, "mcp_remote")
	if err != nil {
		t.Fatal(err)
	}
	cs, problems := connector.Load(fstest.MapFS{"remote/connector.json": {Data: raw}}, "registry", nil)
	if len(problems) > 0 || len(cs) != 1 {
		t.Fatalf("the loader refuses the export: %v\n%s", problems, raw)
	}
	m := cs[0].Manifest
	if m.Description != "Edited copy" || m.Limitations != "No deletes" || m.DisplayName != "Remote" || m.Tools[0].Description != "Open an issue (edited)." || m.Endpoint.URL != r.URL() {
		t.Fatalf("exported manifest: %+v", m)
	}
}

// A disabled connector refuses Connect (422) and its tools leave search_tools and execute_tools; its
// existing logins keep showing; switched on again, its tools come back.
func TestDisabledConnector(t *testing.T) {
	const tok = "tok-disabled-3131"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	res := w.MustConnect(owner(login.ScopeAgent, agent), tok)
	if got := w.Offered(agent); len(got) == 0 {
		t.Fatal("nothing offered")
	}
	off, on := false, true
	if _, err := w.Svc.EditServer(w.Ctx, "admin", "mcp_remote", connectors.ServerEdit{Enabled: &off}); err != nil {
		t.Fatal(err)
	}
	if got := w.Offered(agent); len(got) != 0 {
		t.Fatalf("offered while off = %v", got)
	}
	if found, err := w.Svc.Search(w.Ctx, execCaller(agent), "echo", "", 0); err != nil || len(found) != 0 {
		t.Fatalf("search while off = %v %v", found, err)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"x"}`); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("a tool of a disabled connector ran: %+v", o)
	}
	_, err := w.Connect(owner(login.ScopeOrganization, org), tok, login.OnExisting{})
	mustCode(t, "connect while off", err, domain.CodeUnprocessable, "switched off")
	if ls, err := w.Svc.VisibleLogins(w.Ctx, user, uuid.Nil, agent); err != nil || len(ls) != 1 || ls[0].ID != res.Login.ID {
		t.Fatalf("the login while off: %v %v", ls, err)
	}
	es, _ := w.Svc.Catalog(w.Ctx, user, uuid.Nil)
	if es[0].Enabled {
		t.Fatalf("the catalog says on: %+v", es[0])
	}
	if _, err := w.Svc.EditServer(w.Ctx, "admin", "mcp_remote", connectors.ServerEdit{Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	if o := w.Run(agent, "remote_echo", `{"text":"back"}`); o.Code != "" {
		t.Fatalf("after switching on: %+v", o)
	}
	if n := len(w.EventsOf(connectordom.TypeSwitched)); n != 2 {
		t.Fatalf("%d connector.switched", n)
	}
}

// Adds racing on one slug or on the cap: the claims stream decides them one after another, so one
// organisation never holds a slug twice nor passes maxMcpServers, and no prefix is given twice.
func TestOrgServerAddsRace(t *testing.T) {
	w := newWorld(t, worldOptions{FS: manifestFS("https://93.184.216.34/mcp", nil)})
	capped := w.serviceWith(nil, 3)
	const n = 6
	race := func(slug func(i int) string) (ok int) {
		t.Helper()
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			go func(i int) {
				_, err := capped.AddOrgServer(w.Ctx, user, org, connectors.AddRequest{Slug: slug(i), URL: "https://93.184.216.34/mcp", Auth: connectors.AuthSpec{Kind: "none"}})
				errs <- err
			}(i)
		}
		for i := 0; i < n; i++ {
			err := <-errs
			switch {
			case err == nil:
				ok++
			case domain.ErrorCode(err) == domain.CodeConflict, errors.Is(err, eventstore.ErrConflict):
			default:
				t.Errorf("a racing add: %v", err)
			}
		}
		return ok
	}
	if ok := race(func(int) string { return "same" }); ok != 1 {
		t.Fatalf("%d adds of one slug passed", ok)
	}
	if ok := race(func(i int) string { return fmt.Sprintf("s%d", i) }); ok != 2 {
		t.Fatalf("%d adds passed with room for 2 under a cap of 3", ok)
	}
	rows, err := w.Reader.Rows(w.Ctx)
	if err != nil {
		t.Fatal(err)
	}
	prefixes, mine := map[string]bool{}, 0
	for _, r := range rows {
		if prefixes[r.ToolPrefix] {
			t.Fatalf("prefix %s given twice", r.ToolPrefix)
		}
		prefixes[r.ToolPrefix] = true
		if r.OwnerOrgID == org.String() {
			mine++
		}
	}
	if mine != 3 {
		t.Fatalf("the organisation holds %d servers, cap 3", mine)
	}
}

type keys map[string]bool

func (k keys) PlatformKey(_ context.Context, name string) (map[string]string, bool, error) {
	return map[string]string{}, k[name], nil
}

// A connector is Not set up while a platform key it needs is unset, and set up once it is.
func TestNotSetUpFollowsPlatformKeys(t *testing.T) {
	w := newWorld(t, worldOptions{FS: manifestFS("https://93.184.216.34/mcp", map[string]string{
		"gmailish/connector.json": `{"slug":"gmailish","display_name":"G","endpoint":{"url":"https://93.184.216.34/mcp"},"auth":{"kind":"oauth","oauth":{"strategy":"configured","provider":"google"}}}`,
		"ghish/connector.json":    `{"slug":"ghish","display_name":"GH","endpoint":{"url":"https://93.184.216.34/mcp"},"auth":{"kind":"oauth","oauth":{"strategy":"github_app"}}}`,
		"search/connector.json":   `{"slug":"search","display_name":"S","endpoint":{"url":"https://93.184.216.34/mcp"},"auth":{"kind":"token","instance":{"integration":"web-search","field":"api_key"}}}`,
	})})
	state := func(k keys) map[string]string {
		t.Helper()
		svc, err := connectors.New(connectors.Options{Store: w.Store, DB: w.DB, Projections: w.Runner, Vault: w.Vault, Pool: w.Pool, Scopes: w.Scopes, PlatformKeys: k})
		if err != nil {
			t.Fatal(err)
		}
		es, err := svc.Catalog(w.Ctx, user, uuid.Nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, e := range es {
			out[e.Slug] = e.PlatformKey
			if e.SetUp != (e.PlatformKey == "") || (e.SetupState == "not_set_up") == e.SetUp {
				t.Fatalf("%s: %+v", e.Slug, e)
			}
		}
		return out
	}
	want := map[string]string{"gmailish": "integration:google", "ghish": "github_app", "search": "integration:web-search", "remote": ""}
	if got := state(nil); !maps.Equal(got, want) {
		t.Fatalf("no keys: %v", got)
	}
	if got := state(keys{"integration:google": true, "github_app": true, "integration:web-search": true}); !maps.Equal(got, map[string]string{"gmailish": "", "ghish": "", "search": "", "remote": ""}) {
		t.Fatalf("every key: %v", got)
	}
}
