package connectors_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/app/connectors"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/login"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/dbtest"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	organizationsrm "github.com/workbench/workbench/projections/organizations"
)

// OrganizationScopes over the real organisations read model: chains, and who manages which owner.
func TestOrganizationScopes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db := dbtest.OpenSQLite(t)
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
	if _, err := orgs.Invite(ctx, ada, acme, "bob@example.com", organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	if err := orgs.SignedIn(ctx, bob, "bob@example.com", md); err != nil {
		t.Fatal(err)
	}
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
