package compliance_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/connectors/connectorstest"
	"github.com/workbench/workbench/app/executions"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/plugins"
	"github.com/workbench/workbench/plugins/shipped"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/auditrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// chains answers audit.WhatIfScopes from the connectors test node's agents (Agent in Guild of Org,
// Other in Org only).
type chains struct{ s *connectorstest.Scopes }

func (c chains) ChainFor(ctx context.Context, _, agent uuid.UUID) (organizationsrm.Chain, error) {
	ch, err := c.s.Chain(ctx, agent)
	if err != nil {
		return organizationsrm.Chain{}, organizationsrm.ErrNotFound
	}
	return organizationsrm.Chain(ch), nil
}

func TestWhatIfSQLite(t *testing.T)   { testWhatIf(t, false) }
func TestWhatIfPostgres(t *testing.T) { testWhatIf(t, true) }

// testWhatIf runs real connector tools (a remote MCP server over HTTP) as two agents, then tries
// switch changes on the recorded executions: a change blocks a call only along the agent's chain and
// only when no more specific scope's switch overrides it.
func testWhatIf(t *testing.T, pg bool) {
	const tok = "tok-whatif-123456"
	ctx := context.Background()
	r := connectorstest.NewRemote(t, tok)
	e := connectorstest.Open(t, connectorstest.Options{Postgres: pg, FS: connectorstest.ManifestFS(r.URL(), nil)})
	org := login.Owner{Scope: login.ScopeOrganization, ID: connectorstest.Org}
	if _, err := e.Service.Connect(ctx, connectorstest.User, connectors.ConnectRequest{ServerID: "mcp_remote", Owner: org, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	run := func(agent uuid.UUID, tool string) {
		t.Helper()
		o := e.Executions.Run(ctx, executions.Caller{UserID: connectorstest.User, Via: "api_key", ClientID: "k1", AgentID: agent},
			[]executions.Call{{Tool: tool, Args: json.RawMessage(`{"text":"hi"}`)}})[0]
		if o.Code != "" {
			t.Fatalf("%s as %s: %+v", tool, agent, o)
		}
	}
	run(connectorstest.Agent, "remote_echo")
	run(connectorstest.Agent, "remote_echo")
	run(connectorstest.Agent, "remote_create_issue")
	run(connectorstest.Other, "remote_echo")

	whatIf := func(now time.Time, specs ...string) auditrm.WhatIfReport {
		t.Helper()
		q := auditrm.WhatIfQuery{Days: 30, Now: now, Scopes: chains{e.Scopes}, Current: e.Reader}
		for _, s := range specs {
			p, err := auditrm.ParseSwitch(s)
			if err != nil {
				t.Fatal(err)
			}
			q.Switches = append(q.Switches, p)
		}
		rep, err := auditrm.WhatIf(ctx, e.Store, q)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	blocked := func(rep auditrm.WhatIfReport) map[uuid.UUID]int64 {
		out := map[uuid.UUID]int64{}
		for _, a := range rep.Agents {
			out[a.AgentID] = a.Blocked
			if int64(len(a.Calls)) != a.Blocked || a.ByTool["remote_echo"] != a.Blocked {
				t.Errorf("agent %s: %d calls listed, by tool %v, blocked %d", a.AgentID, len(a.Calls), a.ByTool, a.Blocked)
			}
		}
		return out
	}
	now := time.Now()
	check := func(name string, rep auditrm.WhatIfReport, want map[uuid.UUID]int64, wantTotals auditrm.WhatIfTotals) {
		t.Helper()
		got := blocked(rep)
		if len(got) != len(want) {
			t.Errorf("%s: blocked %v, want %v", name, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: blocked %v, want %v", name, got, want)
			}
		}
		if rep.Totals != wantTotals {
			t.Errorf("%s: totals %+v, want %+v", name, rep.Totals, wantTotals)
		}
	}
	a, o := connectorstest.Agent, connectorstest.Other
	testenv.Settle(t, e.DB, e.Store)
	check("guild off", whatIf(now, "guild:"+connectorstest.Guild.String()+":remote_echo=off"),
		map[uuid.UUID]int64{a: 2}, auditrm.WhatIfTotals{Executions: 4, Matched: 2, Blocked: 2, Agents: 1})
	check("org off", whatIf(now, "org:"+connectorstest.Org.String()+":remote_echo=off"),
		map[uuid.UUID]int64{a: 2, o: 1}, auditrm.WhatIfTotals{Executions: 4, Matched: 3, Blocked: 3, Agents: 2})
	// A platform Off binds every organisation, over the organisation's default (the listing's).
	check("platform off over an org default", whatIf(now, "platform:remote_echo=off"),
		map[uuid.UUID]int64{a: 2, o: 1}, auditrm.WhatIfTotals{Executions: 4, Matched: 3, Blocked: 3, Agents: 2})
	check("agent off", whatIf(now, "agent:"+o.String()+":remote_echo=off", "agent:"+o.String()+":remote_create_issue=off"),
		map[uuid.UUID]int64{o: 1}, auditrm.WhatIfTotals{Executions: 4, Matched: 1, Blocked: 1, Agents: 1})
	check("outside the window", whatIf(now.Add(31*24*time.Hour), "org:"+connectorstest.Org.String()+":remote_echo=off"),
		nil, auditrm.WhatIfTotals{})

	// Agent's own switch turns echo On: an organisation-wide Off still binds it.
	if err := e.Service.SetSwitch(ctx, connectorstest.User, login.Owner{Scope: login.ScopeAgent, ID: a}, "mcp_remote", "remote_echo", true); err != nil {
		t.Fatal(err)
	}
	check("org off over an agent switch", whatIf(now, "org:"+connectorstest.Org.String()+":remote_echo=off"),
		map[uuid.UUID]int64{a: 2, o: 1}, auditrm.WhatIfTotals{Executions: 4, Matched: 3, Blocked: 3, Agents: 2})
	// Switched Off since: the calls count as already off, not as blocked by the proposal.
	if err := e.Service.SetSwitch(ctx, connectorstest.User, org, "mcp_remote", "remote_echo", false); err != nil {
		t.Fatal(err)
	}
	check("already off", whatIf(now, "org:"+connectorstest.Org.String()+":remote_echo=off"),
		nil, auditrm.WhatIfTotals{Executions: 4, Matched: 3, AlreadyOff: 3})
}

// pluginRules is the registry's plugins.Tool.StartsOff, with some tools said to start Off.
type pluginRules struct {
	reg *plugins.Registry
	off map[string]bool
}

func (p pluginRules) StartsOff(tool string) (bool, string, bool) {
	t, ok := p.reg.Tool(tool)
	if !ok {
		return false, "", false
	}
	if p.off[tool] {
		return true, plugins.RuleMutating, true
	}
	off, rule := t.StartsOff()
	return off, rule, true
}

func TestWhatIfPluginToolsSQLite(t *testing.T)   { testWhatIfPluginTools(t, false) }
func TestWhatIfPluginToolsPostgres(t *testing.T) { testWhatIfPluginTools(t, true) }

// testWhatIfPluginTools tries switches on plugin tools' executions: they decide as at run time (a
// plugin tool no scope switches is On; a start-Off rule is a default Off at the platform), and without
// the registry plugin tools never match.
func testWhatIfPluginTools(t *testing.T, pg bool) {
	ctx := context.Background()
	r := connectorstest.NewRemote(t, "tok-whatif-plugins-123456")
	reg, problems := plugins.Load(ctx, plugins.Options{Builtins: shipped.Plugins()})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	e := connectorstest.Open(t, connectorstest.Options{Postgres: pg, FS: connectorstest.ManifestFS(r.URL(), nil),
		Configure: func(o *connectors.Options) { o.Integrations = reg }}) // plugin switches know the plugin tools
	run := func(agent uuid.UUID, tool string, args string) {
		t.Helper()
		o := e.Executions.Run(ctx, executions.Caller{UserID: connectorstest.User, Via: "api_key", ClientID: "k1", AgentID: agent},
			[]executions.Call{{Tool: tool, Args: json.RawMessage(args)}})[0]
		if o.Code != "" {
			t.Fatalf("%s as %s: %+v", tool, agent, o)
		}
	}
	a, o := connectorstest.Agent, connectorstest.Other
	run(a, "utils_echo", `{"message":"hi"}`)
	run(a, "utils_echo", `{"message":"hi"}`)
	run(o, "utils_echo", `{"message":"hi"}`)
	run(a, "utils_uuid", `{}`)
	testenv.Settle(t, e.DB, e.Store)
	rules := pluginRules{reg: e.Registry, off: map[string]bool{"utils_uuid": true}}
	whatIf := func(withPlugins bool, specs ...string) auditrm.WhatIfTotals {
		t.Helper()
		q := auditrm.WhatIfQuery{Days: 30, Scopes: chains{e.Scopes}, Current: e.Reader}
		if withPlugins {
			q.Plugins = rules
		}
		for _, s := range specs {
			p, err := auditrm.ParseSwitch(s)
			if err != nil {
				t.Fatal(err)
			}
			q.Switches = append(q.Switches, p)
		}
		rep, err := auditrm.WhatIf(ctx, e.Store, q)
		if err != nil {
			t.Fatal(err)
		}
		return rep.Totals
	}
	org := "org:" + connectorstest.Org.String()
	for _, c := range []struct {
		name    string
		plugins bool
		specs   []string
		want    auditrm.WhatIfTotals
	}{
		{"org off", true, []string{org + ":utils_echo=off"}, auditrm.WhatIfTotals{Executions: 4, Matched: 3, Blocked: 3, Agents: 2}},
		{"agent off", true, []string{"agent:" + a.String() + ":utils_echo=off"}, auditrm.WhatIfTotals{Executions: 4, Matched: 2, Blocked: 2, Agents: 1}},
		{"without the registry", false, []string{org + ":utils_echo=off"}, auditrm.WhatIfTotals{Executions: 4}},
		// utils_uuid starts Off here: the call that ran counts as already off, whatever is proposed below
		// the platform's default; an org On lifts the default, so an agent Off then blocks it.
		{"start-Off default", true, []string{"agent:" + a.String() + ":utils_uuid=off"}, auditrm.WhatIfTotals{Executions: 4, Matched: 1, AlreadyOff: 1}},
		{"an On lifts the default", true, []string{org + ":utils_uuid=on", "agent:" + a.String() + ":utils_uuid=off"}, auditrm.WhatIfTotals{Executions: 4, Matched: 1, AlreadyOff: 1}},
	} {
		if got := whatIf(c.plugins, c.specs...); got != c.want {
			t.Errorf("%s: totals %+v, want %+v", c.name, got, c.want)
		}
	}
	// Switched On for real at the organisation, the default is lifted: an agent Off would block it.
	if err := e.Service.SetPluginSwitch(ctx, connectorstest.User, login.Owner{Scope: login.ScopeOrganization, ID: connectorstest.Org}, "utils_uuid", true); err != nil {
		t.Fatal(err)
	}
	testenv.Settle(t, e.DB, e.Store)
	if got, want := whatIf(true, "agent:"+a.String()+":utils_uuid=off"), (auditrm.WhatIfTotals{Executions: 4, Matched: 1, Blocked: 1, Agents: 1}); got != want {
		t.Errorf("after an org On: totals %+v, want %+v", got, want)
	}
}

func TestParseSwitch(t *testing.T) {
	id := uuid.MustParse("22222222-2222-4222-8222-222222222222")
	good := map[string]auditrm.ProposedSwitch{
		"platform:gh_create_issue=off":              {Owner: login.Owner{Scope: login.ScopePlatform}, Tool: "gh_create_issue"},
		"org:" + id.String() + ":gh_x=on":           {Owner: login.Owner{Scope: login.ScopeOrganization, ID: id}, Tool: "gh_x", On: true},
		"organization:" + id.String() + ":gh_x=OFF": {Owner: login.Owner{Scope: login.ScopeOrganization, ID: id}, Tool: "gh_x"},
		" guild:" + id.String() + ":gh_x=off ":      {Owner: login.Owner{Scope: login.ScopeGuild, ID: id}, Tool: "gh_x"},
		"agent:" + id.String() + ":remote_echo=off": {Owner: login.Owner{Scope: login.ScopeAgent, ID: id}, Tool: "remote_echo"},
	}
	for in, want := range good {
		got, err := auditrm.ParseSwitch(in)
		if err != nil || got != want {
			t.Errorf("ParseSwitch(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := auditrm.ParseSwitch(got.String()); err != nil || again != got {
			t.Errorf("%q does not round-trip: %v", got.String(), err)
		}
	}
	for _, in := range []string{"", "platform:x", "platform:=off", "platform:x=maybe", "org:x=off", "org:nope:x=off", "team:" + id.String() + ":x=off",
		"agent:" + uuid.Nil.String() + ":x=off", "platform:a b=off"} {
		if _, err := auditrm.ParseSwitch(in); err == nil {
			t.Errorf("ParseSwitch(%q) was accepted", in)
		}
	}
}

func TestWhatIfOrganizationsSQLite(t *testing.T)   { testWhatIfOrganizations(t, false) }
func TestWhatIfOrganizationsPostgres(t *testing.T) { testWhatIfOrganizations(t, true) }

// testWhatIfOrganizations resolves the agents through the organisations read model itself: an
// organisation made with app/organizations, a guild, an agent in it and one outside it; a guild-wide
// Off reaches only the guild's agent.
func testWhatIfOrganizations(t *testing.T, pg bool) {
	const tok = "tok-whatif-orgs-123456"
	ctx := context.Background()
	r := connectorstest.NewRemote(t, tok)
	e := connectorstest.Open(t, connectorstest.Options{Postgres: pg, FS: connectorstest.ManifestFS(r.URL(), nil)})
	dialect := migrations.SQLite
	if pg {
		dialect = migrations.Postgres
	}
	runner, err := projections.NewRunner(e.Store, e.DB, dialect, &projections.Options{Projections: []projections.Projection{organizationsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-done })
	reader := &organizationsrm.Reader{DB: e.DB}
	orgs, err := organizations.New(organizations.Options{Store: e.Store, Reader: reader, Projections: runner})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: connectorstest.User.String()}
	org, err := orgs.Create(ctx, connectorstest.User, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	guild, err := orgs.CreateGuild(ctx, connectorstest.User, org, "Ops", md)
	if err != nil {
		t.Fatal(err)
	}
	inGuild, err := orgs.CreateAgent(ctx, connectorstest.User, org, "ops-bot", guild, md)
	if err != nil {
		t.Fatal(err)
	}
	outside, err := orgs.CreateAgent(ctx, connectorstest.User, org, "docs-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	// The connectors node resolves callers through its own stand-in; it is told the same chains.
	e.Scopes.Chains[inGuild] = connectors.Chain{OrganizationID: org, GuildID: guild, AgentID: inGuild}
	e.Scopes.Chains[outside] = connectors.Chain{OrganizationID: org, AgentID: outside}
	if _, err := e.Service.Connect(ctx, connectorstest.User, connectors.ConnectRequest{ServerID: "mcp_remote",
		Owner: login.Owner{Scope: login.ScopeOrganization, ID: org}, Fields: map[string]string{"token": tok}}); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []uuid.UUID{inGuild, outside, inGuild} {
		o := e.Executions.Run(ctx, executions.Caller{UserID: connectorstest.User, Via: "api_key", ClientID: "k1", AgentID: agent},
			[]executions.Call{{Tool: "remote_echo", Args: json.RawMessage(`{"text":"hi"}`)}})[0]
		if o.Code != "" {
			t.Fatalf("echo as %s: %+v", agent, o)
		}
	}
	p, err := auditrm.ParseSwitch("guild:" + guild.String() + ":remote_echo=off")
	if err != nil {
		t.Fatal(err)
	}
	testenv.Settle(t, e.DB, e.Store)
	rep, err := auditrm.WhatIf(ctx, e.Store, auditrm.WhatIfQuery{Switches: []auditrm.ProposedSwitch{p}, Scopes: reader, Current: e.Reader})
	if err != nil {
		t.Fatal(err)
	}
	if want := (auditrm.WhatIfTotals{Executions: 3, Matched: 2, Blocked: 2, Agents: 1}); rep.Totals != want || len(rep.Agents) != 1 || rep.Agents[0].AgentID != inGuild {
		t.Fatalf("guild off: totals %+v (want %+v), agents %+v", rep.Totals, want, rep.Agents)
	}
}
