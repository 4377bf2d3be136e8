package connectorshttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/connectorshttp"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// The switch rule over HTTP, on real portal sessions and the real organisations read model: an owner
// switches a tool Off at the organisation; a plain member then tries every route that sets or
// clears a switch at each scope she can reach, connects a login of her own agent, and joins a guild
// and switches it On there. None of it turns the tool On for her agent, whichever login the call
// would use; search_tools, get_tool_schema, the login view and the portal test call say why. The
// owner lifts it at the organisation.
func TestSwitchRuleRoutes(t *testing.T) {
	const orgTok, bobTok = "tok-org-acme-55555", "tok-bob-agent-6666"
	remote := connectorstest.NewRemote(t, orgTok)
	remote.Accept(bobTok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil),
		Projections: []projections.Projection{organizationsrm.New()},
		Configure: func(o *connectors.Options) {
			o.Scopes = connectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: o.DB}}
		}})
	ctx := context.Background()
	orgs, err := organizations.New(organizations.Options{Store: env.Store, Reader: &organizationsrm.Reader{DB: env.DB}, Projections: env.Runner})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}
	root := uuid.New()
	if err := orgs.SignedIn(ctx, root, "root@example.com", md); err != nil {
		t.Fatal(err)
	}
	ada, bob, acme := acmeWithMember(t, orgs)
	team, err := orgs.CreateGuild(ctx, ada, acme, "Team", md)
	if err != nil {
		t.Fatal(err)
	}
	bobAgent, err := orgs.CreateAgent(ctx, bob, acme, "bob-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}

	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service, Admins: []string{"root@example.com"},
		Users: users{root: "root@example.com", ada: "ada@example.com", bob: "bob@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	adaC, bobC := as(ada), as(bob)
	sw := func(scope string, id uuid.UUID, tool string, on bool) map[string]any {
		b := map[string]any{"owner_scope": scope, "mcp_server_id": "mcp_remote", "tool": tool, "on": on}
		if id != uuid.Nil {
			b["owner_id"] = id.String()
		}
		return b
	}
	bobCaller := executions.Caller{UserID: bob, Via: "api_key", ClientID: "k1", AgentID: bobAgent}
	run := func() executions.Outcome {
		t.Helper()
		return env.Executions.Run(ctx, bobCaller, []executions.Call{{Tool: "remote_echo", Args: json.RawMessage(`{"text":"x"}`)}})[0]
	}
	const why = "switched Off by organisation Acme"

	code, _, b := adaC.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "organization", "owner_id": acme.String(), "token": orgTok}, true)
	if code != 201 {
		t.Fatalf("the owner connects Acme: %d %v", code, b)
	}
	orgLogin := b["connection"].(map[string]any)["id"].(string)
	if o := run(); o.Code != "" {
		t.Fatalf("before the Off, bob's agent runs echo: %+v", o)
	}
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", sw("organization", acme, "remote_echo", false), true); code != 204 {
		t.Fatalf("the owner's Off: %d %v", code, b)
	}

	// The member, at every scope she can name.
	attempts := []struct {
		name   string
		method string
		path   string
		body   any
		code   int
		says   string
	}{
		{"On at the organisation", "PUT", "/api/mcp/switches", sw("organization", acme, "remote_echo", true), 404, ""},
		{"On at a guild she is not in", "PUT", "/api/mcp/switches", sw("guild", team, "remote_echo", true), 404, ""},
		{"On at her own agent", "PUT", "/api/mcp/switches", sw("agent", bobAgent, "remote_echo", true), 409, why},
		{"On at the platform", "PUT", "/api/mcp/switches", sw("platform", uuid.Nil, "remote_echo", true), 403, "instance admin"},
		{"clearing the organisation's switches by deleting its login", "DELETE", "/api/mcp/connections/" + orgLogin, nil, 404, ""},
		{"a test call on the organisation's login", "POST", "/api/mcp/connections/" + orgLogin + "/call", map[string]any{"tool": "remote_echo", "arguments": map[string]any{"text": "x"}}, 404, ""},
		{"On at her agent for a tool that does not exist", "PUT", "/api/mcp/switches", sw("agent", bobAgent, "remote_nope", true), 422, "remote_nope"},
	}
	for _, a := range attempts {
		code, _, b := bobC.do(a.method, a.path, a.body, true)
		if msg, _ := b["message"].(string); code != a.code || !strings.Contains(msg, a.says) {
			t.Errorf("member, %s: %d %v; want %d saying %q", a.name, code, b, a.code, a.says)
		}
		if o := run(); o.Code != "UNKNOWN_TOOL" {
			t.Fatalf("member, %s: her agent runs echo: %+v", a.name, o)
		}
	}
	// What her agent is told.
	if _, _, err := env.Service.Schema(ctx, bobCaller, "remote_echo"); err == nil || !strings.Contains(err.Error(), why) {
		t.Fatalf("get_tool_schema: %v", err)
	}
	found, err := env.Service.Search(ctx, bobCaller, "echo", "", 10)
	if err != nil || len(found) != 1 || found[0].Name != "remote_echo" || found[0].Unavailable != why {
		t.Fatalf("search_tools = %+v, %v", found, err)
	}

	// A login of her own agent: her agent now calls with her token, and the Off still binds.
	code, _, b = bobC.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": bobAgent.String(), "token": bobTok}, true)
	if code != 201 {
		t.Fatalf("bob connects his agent: %d %v", code, b)
	}
	bobLogin := b["connection"].(map[string]any)["id"].(string)
	if o := run(); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("with her own login, her agent runs echo: %+v", o)
	}
	if code, _, b := bobC.do("PUT", "/api/mcp/switches", sw("agent", bobAgent, "remote_echo", true), true); code != 409 {
		t.Fatalf("On at her agent over her own login: %d %v", code, b)
	}
	code, _, b = bobC.do("POST", "/api/mcp/connections/"+bobLogin+"/call", map[string]any{"tool": "remote_echo", "arguments": map[string]any{"text": "x"}}, true)
	if msg, _ := b["message"].(string); code != 403 || !strings.Contains(msg, why) {
		t.Fatalf("test call of her own login: %d %v", code, b)
	}
	code, _, b = bobC.do("GET", "/api/mcp/connections/"+bobLogin+"?agent_id="+bobAgent.String(), nil, false)
	if code != 200 || toolView(t, b, "remote_echo")["unavailable"] != why || toolView(t, b, "remote_echo")["from"] != "organization" {
		t.Fatalf("the login view: %d %v", code, b)
	}
	// Another's agent is not hers to read the switches of.
	if code, _, b := bobC.do("GET", "/api/mcp/connections/"+bobLogin+"?agent_id="+organization.DefaultAgentID(ada).String(), nil, false); code != 404 {
		t.Fatalf("the login view along ada's agent: %d %v", code, b)
	}

	// In a guild she may manage, with her agent in it: the guild's On is refused too.
	if err := orgs.AddGuildMember(ctx, ada, acme, team, bob, md); err != nil {
		t.Fatal(err)
	}
	if err := orgs.MoveAgent(ctx, bob, acme, bobAgent, team, md); err != nil {
		t.Fatal(err)
	}
	if code, _, b := bobC.do("PUT", "/api/mcp/switches", sw("guild", team, "remote_echo", true), true); code != 409 || !strings.Contains(b["message"].(string), why) {
		t.Fatalf("a guild member's On at the guild: %d %v", code, b)
	}
	if o := run(); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("in the guild, her agent runs echo: %+v", o)
	}

	// The owner lifts it where she set it.
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", sw("organization", acme, "remote_echo", true), true); code != 204 {
		t.Fatalf("the owner's On: %d %v", code, b)
	}
	if o := run(); o.Code != "" {
		t.Fatalf("after the owner's On: %+v", o)
	}

	if n := len(env.Events(t, login.TypeSwitchSet)); n != 2 {
		t.Fatalf("%d toolswitch.set events; want the owner's two", n)
	}
}

// toolView is one tool of a login detail answer.
func toolView(t *testing.T, detail map[string]any, name string) map[string]any {
	t.Helper()
	tools, _ := detail["tools"].([]any)
	for _, x := range tools {
		if m, _ := x.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no tool %s in %v", name, detail)
	return nil
}

// A guild login's defaults never override the organisation's explicit Off, and switches the guild
// set (before its login existed, or after) outlive the login: deleting it clears only the defaults
// its listing wrote.
func TestGuildLoginDefaultsAndExplicitSwitchesRoutes(t *testing.T) {
	const orgTok, guildTok = "tok-org-guild-77777", "tok-guild-login-888"
	remote := connectorstest.NewRemote(t, orgTok)
	remote.Accept(guildTok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	env.Scopes.Names = map[uuid.UUID]string{connectorstest.Org: "Acme"}
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service})
	srv := httptest.NewServer(r)
	defer srv.Close()
	ck, err := sessions.Cookie(connectorstest.User)
	if err != nil {
		t.Fatal(err)
	}
	c := client{t: t, base: srv.URL, cookie: ck}
	org, guild := connectorstest.Org.String(), connectorstest.Guild.String()
	sw := func(scope, id, tool string, on bool) map[string]any {
		return map[string]any{"owner_scope": scope, "owner_id": id, "mcp_server_id": "mcp_remote", "tool": tool, "on": on}
	}
	offered := func() map[string]bool {
		t.Helper()
		ts, err := env.Service.OfferedTools(context.Background(), executions.Caller{UserID: connectorstest.User, AgentID: connectorstest.Agent})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, e := range ts {
			out[e.Name] = true
		}
		return out
	}

	if code, _, b := c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "organization", "owner_id": org, "token": orgTok}, true); code != 201 {
		t.Fatalf("org login: %d %v", code, b)
	}
	if code, _, b := c.do("PUT", "/api/mcp/switches", sw("organization", org, "remote_echo", false), true); code != 204 {
		t.Fatalf("org Off: %d %v", code, b)
	}
	// Set by the guild before its login exists.
	if code, _, b := c.do("PUT", "/api/mcp/switches", sw("guild", guild, "remote_create_issue", false), true); code != 204 {
		t.Fatalf("guild Off: %d %v", code, b)
	}
	code, _, b := c.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "guild", "owner_id": guild, "token": guildTok}, true)
	if code != 201 {
		t.Fatalf("guild login: %d %v", code, b)
	}
	guildLogin := b["connection"].(map[string]any)["id"].(string)
	if got := offered(); got["remote_echo"] || got["remote_create_issue"] {
		t.Errorf("with the guild login, the agent is offered %v", got)
	}
	code, _, b = c.do("GET", "/api/mcp/connections/"+guildLogin, nil, false)
	if echo := toolView(t, b, "remote_echo"); code != 200 || echo["on"] != false || echo["from"] != "organization" || echo["unavailable"] != "switched Off by organisation Acme" {
		t.Errorf("echo in the guild login's view: %d %v", code, echo)
	}
	if code, _, _ := c.do("DELETE", "/api/mcp/connections/"+guildLogin, nil, true); code != 204 {
		t.Fatalf("delete the guild login: %d", code)
	}
	var n int
	if err := env.DB.QueryRow(`SELECT COUNT(*) FROM mcp_tool_switches WHERE scope = 'guild' AND scope_id = $1 AND tool = 'remote_create_issue' AND is_on = 0`, guild).Scan(&n); err != nil || n != 1 {
		t.Fatalf("the guild's own Off after its login went: %d rows, %v", n, err)
	}
	eff, err := env.Service.Effective(context.Background(), connectorstest.Agent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eff {
		if e.Name == "remote_create_issue" && (e.On || e.From.Scope != login.ScopeGuild || !e.Explicit() || e.Login.Owner.Scope != login.ScopeOrganization) {
			t.Fatalf("after the guild login went, create_issue = %+v", e.Decision)
		}
	}
}

// The platform's switches over PUT /api/mcp/switches: the instance admin's alone (an organisation
// owner and a member are refused), for a tool the connector has; the platform's Off binds every
// organisation below it, and get_tool_schema says so.
func TestPlatformSwitchRoutes(t *testing.T) {
	const tok = "tok-platform-switch-1"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	admin, member := uuid.New(), uuid.New()
	env.Scopes.SetRole(connectorstest.Org, member, organization.RoleMember)
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service, Admins: []string{"root@example.com"},
		Users: users{admin: "Root@Example.com", connectorstest.User: "ada@example.com", member: "mo@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	root, ada, mo := as(admin), as(connectorstest.User), as(member)
	org := connectorstest.Org.String()
	if code, _, b := ada.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "organization", "owner_id": org, "token": tok}, true); code != 201 {
		t.Fatalf("org login: %d %v", code, b)
	}
	platform := func(tool string, on bool) map[string]any {
		return map[string]any{"owner_scope": "platform", "owner_id": uuid.Nil.String(), "mcp_server_id": "mcp_remote", "tool": tool, "on": on}
	}
	caller := executions.Caller{UserID: connectorstest.User, Via: "api_key", AgentID: connectorstest.Agent}
	run := func() executions.Outcome {
		return env.Executions.Run(context.Background(), caller, []executions.Call{{Tool: "remote_echo", Args: json.RawMessage(`{"text":"x"}`)}})[0]
	}
	for name, c := range map[string]client{"an organisation owner": ada, "a member": mo} {
		if code, _, b := c.do("PUT", "/api/mcp/switches", platform("remote_echo", false), true); code != 403 {
			t.Fatalf("%s at the platform: %d %v", name, code, b)
		}
	}
	if o := run(); o.Code != "" {
		t.Fatalf("after the refused platform Offs: %+v", o)
	}
	if code, _, b := root.do("PUT", "/api/mcp/switches", platform("remote_echo", false), true); code != 204 {
		t.Fatalf("the instance admin at the platform: %d %v", code, b)
	}
	if o := run(); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("after the platform's Off: %+v", o)
	}
	if code, _, b := ada.do("PUT", "/api/mcp/switches", map[string]any{"owner_scope": "organization", "owner_id": org, "mcp_server_id": "mcp_remote", "tool": "remote_echo", "on": true}, true); code != 409 || !strings.Contains(b["message"].(string), "switched Off by the platform") {
		t.Fatalf("the owner's On below the platform's Off: %d %v", code, b)
	}
	if _, _, err := env.Service.Schema(context.Background(), caller, "remote_echo"); err == nil || !strings.Contains(err.Error(), "switched Off by the platform") {
		t.Fatalf("get_tool_schema after the platform's Off: %v", err)
	}
	if code, _, b := root.do("PUT", "/api/mcp/switches", map[string]any{"owner_scope": "platform", "owner_id": org, "mcp_server_id": "mcp_remote", "tool": "remote_echo", "on": true}, true); code != 400 {
		t.Fatalf("the platform with an owner id: %d %v", code, b)
	}
	if code, _, b := root.do("PUT", "/api/mcp/switches", platform("remote_echo", true), true); code != 204 {
		t.Fatalf("the instance admin lifts it: %d %v", code, b)
	}
	if o := run(); o.Code != "" {
		t.Fatalf("after the platform's On: %+v", o)
	}
}

// A switch naming a tool the connector lacks is a 422 naming it, at every scope, and writes nothing.
func TestUnknownToolSwitchRoutes(t *testing.T) {
	const tok = "tok-unknown-tool-12"
	remote := connectorstest.NewRemote(t, tok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil)})
	sessions, err := websession.New(bytes.Repeat([]byte("k"), 32), "http://wb.test", nil)
	if err != nil {
		t.Fatal(err)
	}
	admin := uuid.New()
	r := chi.NewRouter()
	connectorshttp.Mount(r, connectorshttp.Deps{Sessions: sessions, Connectors: env.Service, Admins: []string{"root@example.com"},
		Users: users{admin: "root@example.com", connectorstest.User: "ada@example.com"}})
	srv := httptest.NewServer(r)
	defer srv.Close()
	as := func(u uuid.UUID) client {
		ck, err := sessions.Cookie(u)
		if err != nil {
			t.Fatal(err)
		}
		return client{t: t, base: srv.URL, cookie: ck}
	}
	root, ada := as(admin), as(connectorstest.User)
	if code, _, b := ada.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": connectorstest.Agent.String(), "token": tok}, true); code != 201 {
		t.Fatalf("login: %d %v", code, b)
	}
	for _, c := range []struct {
		who         client
		scope, id   string
		tool        string
		code        int
		mustContain string
	}{
		{ada, "agent", connectorstest.Agent.String(), "remote_no_such_tool", 422, "remote_no_such_tool"},
		{ada, "organization", connectorstest.Org.String(), "echo", 422, "echo"},
		{ada, "guild", connectorstest.Guild.String(), "remote_echo_", 422, "remote_echo_"},
		{root, "platform", "", "remote_no_such_tool", 422, "remote_no_such_tool"},
		{ada, "agent", connectorstest.Agent.String(), "remote_echo", 204, ""},
		{ada, "organization", connectorstest.Org.String(), "remote_create_issue", 204, ""},
	} {
		body := map[string]any{"owner_scope": c.scope, "mcp_server_id": "mcp_remote", "tool": c.tool, "on": false}
		if c.id != "" {
			body["owner_id"] = c.id
		}
		code, _, b := c.who.do("PUT", "/api/mcp/switches", body, true)
		if msg, _ := b["message"].(string); code != c.code || !strings.Contains(msg, c.mustContain) {
			t.Errorf("%s %s: %d %v; want %d naming it", c.scope, c.tool, code, b, c.code)
		}
	}
	if n := len(env.Events(t, login.TypeSwitchSet)); n != 2 {
		t.Fatalf("%d toolswitch.set events; want the two known tools'", n)
	}
	// A tool only another organisation's login lists is as unknown as one no one lists: the answer
	// does not tell another organisation's tool names.
	orgB, agentB := uuid.New(), uuid.New()
	env.Scopes.AddAgent(orgB, agentB)
	sdk.AddTool(remote.MCP, &sdk.Tool{Name: "zap_pay_the_ceo", Description: "A per-account tool."}, connectorstest.Text("paid"))
	if code, _, b := ada.do("POST", "/api/mcp/connections", map[string]any{"mcp_server_id": "mcp_remote", "owner_scope": "agent", "owner_id": agentB.String(), "token": tok}, true); code != 201 {
		t.Fatalf("org B's login: %d %v", code, b)
	}
	for _, c := range []struct {
		scope, id string
		code      int
	}{
		{"organization", connectorstest.Org.String(), 422},
		{"agent", connectorstest.Agent.String(), 422},
		{"organization", orgB.String(), 204},
	} {
		code, _, b := ada.do("PUT", "/api/mcp/switches", map[string]any{"owner_scope": c.scope, "owner_id": c.id, "mcp_server_id": "mcp_remote", "tool": "remote_zap_pay_the_ceo", "on": false}, true)
		if code != c.code {
			t.Errorf("%s %s, a tool org B's login lists: %d %v; want %d", c.scope, c.id, code, b, c.code)
		}
	}
}

// acmeWithMember makes organisation Acme of its owner ada, with bob a plain member: invited before
// his first sign-in, he accepts once signed in.
func acmeWithMember(t *testing.T, orgs *organizations.Service) (ada, bob, acme uuid.UUID) {
	t.Helper()
	ctx, md := context.Background(), eventstore.Metadata{Actor: "test"}
	ada, bob = uuid.New(), uuid.New()
	if err := orgs.SignedIn(ctx, ada, "ada@example.com", md); err != nil {
		t.Fatal(err)
	}
	acme, err := orgs.Create(ctx, ada, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.Invite(ctx, ada, acme, "bob@example.com", organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	if err := orgs.SignedIn(ctx, bob, "bob@example.com", md); err != nil {
		t.Fatal(err)
	}
	invs, err := orgs.PendingInvitations(ctx, "bob@example.com")
	if err != nil || len(invs) != 1 {
		t.Fatalf("bob's invitations: %+v, %v", invs, err)
	}
	if _, err := orgs.AcceptInvitation(ctx, bob, "bob@example.com", invs[0].ID, md); err != nil {
		t.Fatal(err)
	}
	if m, err := orgs.Reader().Membership(ctx, acme, bob); err != nil || m.Role != organization.RoleMember {
		t.Fatalf("bob in Acme: %+v, %v", m, err)
	}
	return ada, bob, acme
}
