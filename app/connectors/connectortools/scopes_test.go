package connectortools_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
)

// Switch inheritance across the four scopes: an explicit Off binds every scope below it, whichever
// login the call uses, and a scope below cannot turn it On (refused); else the most specific explicit
// On decides; a default (a listing writes each new tool's default at the login owner's scope) never
// overrides an explicit choice.
func TestSwitchInheritanceAcrossFourScopes(t *testing.T) {
	type set struct {
		scope   login.Scope
		on      bool
		refused bool // CodeConflict: below an explicit Off
	}
	idOf := map[login.Scope]uuid.UUID{login.ScopeOrganization: org, login.ScopeGuild: guild, login.ScopeAgent: agent}
	cases := []struct {
		name       string
		loginAt    login.Scope
		tool       string // remote_echo starts On, remote_wipe_everything Off (destructive hint)
		sets       []set
		agentOn    bool
		agentFrom  login.Scope
		otherOn    bool // the agent of the organization in no guild
		otherFrom  login.Scope
		otherSeesT bool // the other agent sees the login at all
	}{
		{name: "the organization's default reaches every agent", loginAt: login.ScopeOrganization, tool: "remote_echo",
			agentOn: true, agentFrom: login.ScopeOrganization, otherOn: true, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "the organization turns it Off for all", loginAt: login.ScopeOrganization, tool: "remote_echo", sets: []set{{login.ScopeOrganization, false, false}},
			agentOn: false, agentFrom: login.ScopeOrganization, otherOn: false, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "a guild cannot turn On what the organization turned Off", loginAt: login.ScopeOrganization, tool: "remote_echo",
			sets:    []set{{login.ScopeOrganization, false, false}, {login.ScopeGuild, true, true}, {login.ScopeAgent, true, true}},
			agentOn: false, agentFrom: login.ScopeOrganization, otherOn: false, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "an organization Off binds an agent On set before it", loginAt: login.ScopeOrganization, tool: "remote_echo",
			sets:    []set{{login.ScopeAgent, true, false}, {login.ScopeGuild, true, false}, {login.ScopeOrganization, false, false}},
			agentOn: false, agentFrom: login.ScopeOrganization, otherOn: false, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "an agent turns Off what its guild turned On", loginAt: login.ScopeOrganization, tool: "remote_echo",
			sets:    []set{{login.ScopeGuild, true, false}, {login.ScopeAgent, false, false}},
			agentOn: false, agentFrom: login.ScopeAgent, otherOn: true, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "a platform Off binds every organization", loginAt: login.ScopeOrganization, tool: "remote_echo",
			sets:    []set{{login.ScopePlatform, false, false}, {login.ScopeOrganization, true, true}},
			agentOn: false, agentFrom: login.ScopePlatform, otherOn: false, otherFrom: login.ScopePlatform, otherSeesT: true},
		{name: "a destructive tool starts Off on the organization's login and an agent's On does not lift it", loginAt: login.ScopeOrganization, tool: "remote_wipe_everything",
			sets:    []set{{login.ScopeAgent, true, false}, {login.ScopeGuild, true, false}},
			agentOn: false, agentFrom: login.ScopeOrganization, otherOn: false, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "the organization lifts its login's default Off and an agent narrows it", loginAt: login.ScopeOrganization, tool: "remote_wipe_everything",
			sets:    []set{{login.ScopeOrganization, true, false}, {login.ScopeGuild, false, false}},
			agentOn: false, agentFrom: login.ScopeGuild, otherOn: true, otherFrom: login.ScopeOrganization, otherSeesT: true},
		{name: "an agent's own login's default Off yields to the agent's On", loginAt: login.ScopeAgent, tool: "remote_wipe_everything",
			sets:    []set{{login.ScopeAgent, true, false}},
			agentOn: true, agentFrom: login.ScopeAgent},
		{name: "the platform's explicit On beats the organization's default", loginAt: login.ScopeOrganization, tool: "remote_wipe_everything",
			sets:    []set{{login.ScopePlatform, true, false}},
			agentOn: true, agentFrom: login.ScopePlatform, otherOn: true, otherFrom: login.ScopePlatform, otherSeesT: true},
		{name: "a guild login is the guild's agents' alone", loginAt: login.ScopeGuild, tool: "remote_echo",
			agentOn: true, agentFrom: login.ScopeGuild},
		{name: "an organization Off binds an agent login's default", loginAt: login.ScopeAgent, tool: "remote_echo",
			sets:    []set{{login.ScopeOrganization, false, false}},
			agentOn: false, agentFrom: login.ScopeOrganization},
		{name: "a guild login's default Off yields to an organization On", loginAt: login.ScopeGuild, tool: "remote_wipe_everything",
			sets:    []set{{login.ScopeOrganization, true, false}},
			agentOn: true, agentFrom: login.ScopeOrganization},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			const tok = "tok-scope-1234"
			r := newRemote(t, tok)
			w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
			w.MustConnect(owner(c.loginAt, idOf[c.loginAt]), tok)
			for _, s := range c.sets {
				var err error
				if s.scope == login.ScopePlatform {
					err = w.Svc.SetPlatformSwitch(w.Ctx, "admin", "mcp_remote", c.tool, s.on)
				} else {
					err = w.Svc.SetSwitch(w.Ctx, user, owner(s.scope, idOf[s.scope]), "mcp_remote", c.tool, s.on)
				}
				if s.refused && codeOf(err) != domain.CodeConflict || !s.refused && err != nil {
					t.Fatalf("%s On=%v: %v (refused: %v)", s.scope, s.on, err, s.refused)
				}
			}
			check := func(who uuid.UUID, sees, on bool, from login.Scope) {
				t.Helper()
				eff, err := w.Svc.Effective(w.Ctx, who)
				if err != nil {
					t.Fatal(err)
				}
				i := slices.IndexFunc(eff, func(e effective) bool { return e.Name == c.tool })
				if !sees {
					if i >= 0 {
						t.Fatalf("%s sees %s", who, c.tool)
					}
					return
				}
				if i < 0 {
					t.Fatalf("%s does not see %s", who, c.tool)
				}
				if eff[i].On != on || eff[i].From.Scope != from {
					t.Fatalf("%s: on=%v from=%s, want on=%v from=%s", who, eff[i].On, eff[i].From.Scope, on, from)
				}
				// search_tools and execute_tools honour it.
				offered := slices.Contains(w.Offered(who), c.tool)
				if offered != on {
					t.Fatalf("%s offered=%v, want %v", who, offered, on)
				}
				o := w.Run(who, c.tool, `{"text":"x"}`)
				if on && o.Code != "" || !on && o.Code != "UNKNOWN_TOOL" {
					t.Fatalf("%s run = %+v", who, o)
				}
			}
			check(agent, true, c.agentOn, c.agentFrom)
			check(other, c.otherSeesT, c.otherOn, c.otherFrom)
		})
	}
}

// The login of the most specific scope is the one an agent's calls use; switches and connect are
// refused at an owner the user does not manage; the platform's switches are not the user's.
func TestMostSpecificLoginAndManageChecks(t *testing.T) {
	r := newRemote(t, "tok-org-11111")
	r.Accept("tok-agent-2222")
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	w.MustConnect(owner(login.ScopeOrganization, org), "tok-org-11111")
	w.MustConnect(owner(login.ScopeAgent, agent), "tok-agent-2222")
	eff, err := w.Svc.Effective(w.Ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eff {
		if e.Login.Owner.Scope != login.ScopeAgent {
			t.Fatalf("agent uses the %s login for %s", e.Login.Owner.Scope, e.Name)
		}
	}
	eff, _ = w.Svc.Effective(w.Ctx, other)
	for _, e := range eff {
		if e.Login.Owner.Scope != login.ScopeOrganization {
			t.Fatalf("other agent uses the %s login", e.Login.Owner.Scope)
		}
	}
	// The agent's call uses the agent's token; the result is redacted against it.
	w.Svc.SetSwitch(w.Ctx, user, owner(login.ScopeAgent, agent), "mcp_remote", "remote_whoami", true)
	o := w.Run(agent, "remote_whoami", `{"text":""}`)
	if o.Code != "" || strings.Contains(string(o.Result), "tok-agent") || !strings.Contains(string(o.Result), "[REDACTED]") {
		t.Fatalf("whoami = %+v", o)
	}
	stranger := owner(login.ScopeGuild, uuid.New())
	w.Scopes.Deny[stranger] = true
	if err := w.Svc.SetSwitch(w.Ctx, user, stranger, "mcp_remote", "remote_echo", true); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("switch at a stranger's guild: %v", err)
	}
	if _, err := w.Connect(stranger, "tok-org-11111", login.OnExisting{}); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("connect at a stranger's guild: %v", err)
	}
	if err := w.Svc.SetSwitch(w.Ctx, user, login.Owner{Scope: login.ScopePlatform}, "mcp_remote", "remote_echo", true); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("user switch at the platform: %v", err)
	}
}
