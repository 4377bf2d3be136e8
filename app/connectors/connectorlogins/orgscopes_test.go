package connectorlogins_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// OrganizationScopes over the real organisations read model: chains, and who manages which owner.
func TestOrganizationScopes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := testenv.OpenSQLite(t)
	runner, err := projections.NewRunner(db.Store, db.DB, migrations.SQLite, &projections.Options{Projections: []projections.Projection{organizationsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	defer func() { cancel(); <-done }()
	reader := &organizationsrm.Reader{DB: db.DB}
	orgs, err := organizations.New(organizations.Options{Store: db.Store, Reader: reader, Projections: runner})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}
	ada, bob, carol := uuid.New(), uuid.New(), uuid.New()
	for u, email := range map[uuid.UUID]string{ada: "ada@example.com", bob: "bob@example.com"} {
		if err := orgs.SignedIn(ctx, u, email, md); err != nil {
			t.Fatal(err)
		}
	}
	acme, err := orgs.Create(ctx, ada, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	joinOrg(t, ctx, orgs, acme, ada, bob, "bob@example.com")
	team, err := orgs.CreateGuild(ctx, ada, acme, "Team", md)
	if err != nil {
		t.Fatal(err)
	}
	adaAgent, err := orgs.CreateAgent(ctx, ada, acme, "ada-bot", team, md)
	if err != nil {
		t.Fatal(err)
	}
	bobAgent, err := orgs.CreateAgent(ctx, bob, acme, "bob-bot", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	sc := connectors.OrganizationScopes{Reader: reader}

	if c, err := sc.Chain(ctx, adaAgent); err != nil || c != (connectors.Chain{OrganizationID: acme, GuildID: team, AgentID: adaAgent}) {
		t.Fatalf("chain = %+v, %v", c, err)
	}
	if _, err := sc.Chain(ctx, uuid.New()); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("chain of no agent: %v", err)
	}
	cases := []struct {
		name  string
		user  uuid.UUID
		owner login.Owner
		ok    bool
	}{
		{"the owner manages the organisation", ada, login.Owner{Scope: login.ScopeOrganization, ID: acme}, true},
		{"a member does not", bob, login.Owner{Scope: login.ScopeOrganization, ID: acme}, false},
		{"a stranger does not", carol, login.Owner{Scope: login.ScopeOrganization, ID: acme}, false},
		{"everyone manages their personal organisation", carol, login.Owner{Scope: login.ScopeOrganization, ID: organization.PersonalOrganizationID(carol)}, true},
		{"the owner manages a guild", ada, login.Owner{Scope: login.ScopeGuild, ID: team}, true},
		{"a member outside the guild does not", bob, login.Owner{Scope: login.ScopeGuild, ID: team}, false},
		{"a member manages their own agent", bob, login.Owner{Scope: login.ScopeAgent, ID: bobAgent}, true},
		{"a member does not manage another's agent", bob, login.Owner{Scope: login.ScopeAgent, ID: adaAgent}, false},
		{"an owner manages a member's agent", ada, login.Owner{Scope: login.ScopeAgent, ID: bobAgent}, true},
		{"everyone manages their default agent", carol, login.Owner{Scope: login.ScopeAgent, ID: organization.DefaultAgentID(carol)}, true},
		{"no one manages the platform here", ada, login.Owner{Scope: login.ScopePlatform}, false},
	}
	for _, c := range cases {
		err := sc.MayManage(ctx, c.user, c.owner)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := orgs.AddGuildMember(ctx, ada, acme, team, bob, md); err != nil {
		t.Fatal(err)
	}
	if err := sc.MayManage(ctx, bob, login.Owner{Scope: login.ScopeGuild, ID: team}); err != nil {
		t.Fatalf("a guild member: %v", err)
	}
}

// Deleting an agent, or removing the member who owns it, removes the agent's connector logins as
// deleting a login does: gone from the read model, and their credentials in the log shredded (issue
// 24, item 5). Another member's agent keeps its login.
func TestDeletedAgentsLoginsAreRemoved(t *testing.T) {
	const tok = "tok-agent-gone-314"
	r := newRemote(t, tok)
	w := newWorld(t, worldOptions{FS: manifestFS(r.URL(), nil)})
	// The organisations read model beside the node's own projections, on the same log.
	ctx, cancel := context.WithCancel(w.Ctx)
	runner, err := projections.NewRunner(w.Store, w.DB, migrations.SQLite, &projections.Options{Projections: []projections.Projection{organizationsrm.New()}, PollInterval: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = runner.Run(ctx) }()
	defer func() { cancel(); <-done }()
	orgs, err := organizations.New(organizations.Options{Store: w.Store, Reader: &organizationsrm.Reader{DB: w.DB}, Projections: runner, Logins: w.Svc})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}
	ada, bob := uuid.New(), uuid.New()
	acme, err := orgs.Create(w.Ctx, ada, "ada@example.com", "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	joinOrg(t, w.Ctx, orgs, acme, ada, bob, "bob@example.com")
	agentOf := func(owner uuid.UUID, name string) uuid.UUID {
		t.Helper()
		id, err := orgs.CreateAgent(w.Ctx, owner, acme, name, uuid.Nil, md)
		if err != nil {
			t.Fatal(err)
		}
		w.Scopes.AddAgent(acme, id)
		return id
	}
	adaBot, bobOne, bobTwo := agentOf(ada, "ada-bot"), agentOf(bob, "one"), agentOf(bob, "two")
	logins := map[uuid.UUID]uuid.UUID{}
	for _, a := range []uuid.UUID{adaBot, bobOne, bobTwo} {
		logins[a] = w.MustConnect(owner(login.ScopeAgent, a), tok).Login.ID
	}
	sealed := map[uuid.UUID]domain.Sealed{}
	for _, ev := range w.EventsOf(login.TypeConnected) {
		var c login.Connected
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatal(err)
		}
		sealed[c.LoginID] = c.Credential
	}
	gone := func(what string, agent uuid.UUID) {
		t.Helper()
		id := logins[agent]
		if _, err := w.Reader.Login(w.Ctx, id); domain.ErrorCode(err) != domain.CodeNotFound {
			t.Fatalf("%s: the agent's login is still there (%v)", what, err)
		}
		if _, err := w.Vault.Open(w.Ctx, sealed[id], "mcp-login-credentials"); !errors.Is(err, vault.ErrShredded) {
			t.Fatalf("%s: the login's credential opens: %v, want ErrShredded", what, err)
		}
	}
	if err := orgs.DeleteAgent(w.Ctx, ada, acme, bobOne, md); err != nil {
		t.Fatal(err)
	}
	gone("delete the agent", bobOne)
	if err := orgs.RemoveMember(w.Ctx, ada, acme, bob, md); err != nil {
		t.Fatal(err)
	}
	gone("remove its owner", bobTwo)
	if _, err := w.Reader.Login(w.Ctx, logins[adaBot]); err != nil {
		t.Fatalf("another member's agent lost its login: %v", err)
	}
	if _, err := w.Vault.Open(w.Ctx, sealed[logins[adaBot]], "mcp-login-credentials"); err != nil {
		t.Fatalf("another member's agent's credential: %v", err)
	}

	// An agent deleted by a version that left its logins: the boot sweep removes them, from the log's
	// AgentDeleted, and leaves a live agent's login alone.
	oldOrgs, err := organizations.New(organizations.Options{Store: w.Store, Reader: &organizationsrm.Reader{DB: w.DB}, Projections: runner})
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := oldOrgs.CreateAgent(w.Ctx, ada, acme, "legacy", uuid.Nil, md)
	if err != nil {
		t.Fatal(err)
	}
	logins[legacy] = w.MustConnect(owner(login.ScopeAgent, legacy), tok).Login.ID
	for _, ev := range w.EventsOf(login.TypeConnected) {
		var c login.Connected
		if err := json.Unmarshal(ev.Data, &c); err != nil {
			t.Fatal(err)
		}
		sealed[c.LoginID] = c.Credential
	}
	if err := oldOrgs.DeleteAgent(w.Ctx, ada, acme, legacy, md); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Reader.Login(w.Ctx, logins[legacy]); err != nil {
		t.Fatalf("the old version's deletion already removed the login: %v", err)
	}
	// An agent the scopes do not know, but that the log never deleted (a read model behind).
	unseen := w.MustConnect(owner(login.ScopeAgent, uuid.New()), tok).Login.ID
	if n, err := w.Svc.SweepDeletedAgentLogins(w.Ctx, md); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v, want 1 login removed", n, err)
	}
	gone("the sweep", legacy)
	if n, err := w.Svc.SweepDeletedAgentLogins(w.Ctx, md); err != nil || n != 0 {
		t.Fatalf("a second sweep: %d %v, want nothing", n, err)
	}
	for _, id := range []uuid.UUID{logins[adaBot], unseen} {
		if _, err := w.Reader.Login(w.Ctx, id); err != nil {
			t.Fatalf("the sweep removed a login whose agent the log did not delete: %v", err)
		}
	}
}

// joinOrg has admin invite user's address to org and user accept it.
func joinOrg(t *testing.T, ctx context.Context, orgs *organizations.Service, org, admin, user uuid.UUID, email string) {
	t.Helper()
	md := eventstore.Metadata{Actor: "test"}
	if _, err := orgs.Invite(ctx, admin, org, email, organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	invs, err := orgs.PendingInvitations(ctx, email)
	if err != nil {
		t.Fatal(err)
	}
	for _, inv := range invs {
		if inv.OrganizationID == org {
			if _, err := orgs.AcceptInvitation(ctx, user, email, inv.ID, md); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatalf("%s has no invitation to %s", email, org)
}
