package connectors_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	appconnectors "github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/handlers/connectors"
	"github.com/workbench/workbench/handlers/websession"
	"github.com/workbench/workbench/projections"
	organizationsrm "github.com/workbench/workbench/projections/organizations"
)

// The switch rule over HTTP, on real portal sessions and the real organisations read model: an owner
// switches a tool Off at the organisation; a plain member then tries every route that sets or
// clears a switch at each scope she can reach, connects a login of her own agent, and joins a guild
// and switches it On there. None of it turns the tool On for her agent, whichever login the call
// would use; search_tools, get_tool_schema, the login view and the portal test call say why. The
// owner lifts it at the organisation. The instance admin alone sets a platform switch, which binds
// the organisation; a tool the connector lacks is a 422 naming it.
func TestSwitchRuleRoutes(t *testing.T) {
	const orgTok, bobTok = "tok-org-acme-55555", "tok-bob-agent-6666"
	remote := connectorstest.NewRemote(t, orgTok)
	remote.Accept(bobTok)
	env := connectorstest.Open(t, connectorstest.Options{FS: connectorstest.ManifestFS(remote.URL(), nil),
		Projections: []projections.Projection{organizationsrm.New()},
		Configure: func(o *appconnectors.Options) {
			o.Scopes = appconnectors.OrganizationScopes{Reader: &organizationsrm.Reader{DB: o.DB}}
		}})
	ctx := context.Background()
	orgs, err := organizations.New(organizations.Options{Store: env.Store, Reader: &organizationsrm.Reader{DB: env.DB}, Projections: env.Runner})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}
	root, ada, bob := uuid.New(), uuid.New(), uuid.New()
	for u, email := range map[uuid.UUID]string{root: "root@example.com", ada: "ada@example.com"} {
		if err := orgs.SignedIn(ctx, u, email, md); err != nil {
			t.Fatal(err)
		}
	}
	acme, err := orgs.Create(ctx, ada, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	// Bob becomes a plain member: invited before his first sign-in, a member at it.
	if _, err := orgs.Invite(ctx, ada, acme, "bob@example.com", organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	if err := orgs.SignedIn(ctx, bob, "bob@example.com", md); err != nil {
		t.Fatal(err)
	}
	if m, err := orgs.Reader().Membership(ctx, acme, bob); err != nil || m.Role != organization.RoleMember {
		t.Fatalf("bob in Acme: %+v, %v", m, err)
	}
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
	connectors.Mount(r, connectors.Deps{Sessions: sessions, Connectors: env.Service, Admins: []string{"root@example.com"},
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
	rootC, adaC, bobC := as(root), as(ada), as(bob)
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

	// The platform: the instance admin's alone, and it binds the organisation.
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", sw("platform", uuid.Nil, "remote_echo", false), true); code != 403 {
		t.Fatalf("the owner at the platform: %d %v", code, b)
	}
	if code, _, b := rootC.do("PUT", "/api/mcp/switches", sw("platform", uuid.Nil, "remote_nope", false), true); code != 422 || !strings.Contains(b["message"].(string), "remote_nope") {
		t.Fatalf("the admin, an unknown tool: %d %v", code, b)
	}
	if code, _, b := rootC.do("PUT", "/api/mcp/switches", sw("platform", uuid.Nil, "remote_echo", false), true); code != 204 {
		t.Fatalf("the admin at the platform: %d %v", code, b)
	}
	if o := run(); o.Code != "UNKNOWN_TOOL" {
		t.Fatalf("after the platform's Off: %+v", o)
	}
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", sw("organization", acme, "remote_echo", true), true); code != 409 || !strings.Contains(b["message"].(string), "switched Off by the platform") {
		t.Fatalf("the owner's On below the platform's Off: %d %v", code, b)
	}
	if _, _, err := env.Service.Schema(ctx, bobCaller, "remote_echo"); err == nil || !strings.Contains(err.Error(), "switched Off by the platform") {
		t.Fatalf("get_tool_schema after the platform's Off: %v", err)
	}
	if code, _, b := rootC.do("PUT", "/api/mcp/switches", sw("platform", uuid.Nil, "remote_echo", true), true); code != 204 {
		t.Fatalf("the admin lifts it: %d %v", code, b)
	}
	if o := run(); o.Code != "" {
		t.Fatalf("after the platform's On: %+v", o)
	}
	// An owner's tool name the connector lacks.
	if code, _, b := adaC.do("PUT", "/api/mcp/switches", sw("organization", acme, "remote_nope", false), true); code != 422 || !strings.Contains(b["message"].(string), "remote_nope") {
		t.Fatalf("the owner, an unknown tool: %d %v", code, b)
	}
	if n := len(env.Events(t, login.TypeSwitchSet)); n != 4 {
		t.Fatalf("%d toolswitch.set events; want the four that were accepted", n)
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
