package organizationsrm_test

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/eventstore/memory"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
	"github.com/workbench/workbench/projections/projectiontest"
)

type env struct {
	ctx      context.Context
	db       *sql.DB
	store    eventstore.Store
	runner   *projections.Runner
	accounts *accounts.Service
	orgs     *organizations.Service
	reader   *organizationsrm.Reader
	keys     identityrm.Reader
}

func setup(t *testing.T, db *sql.DB, dialect migrations.Dialect) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if _, err := migrations.Apply(ctx, db, dialect, nil); err != nil {
		t.Fatal(err)
	}
	store := memory.New(nil)
	t.Cleanup(func() { store.Close() })
	key, err := vault.GenerateMasterKey()
	if err != nil {
		t.Fatal(err)
	}
	v, err := vault.New(db, store, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	runner, err := projections.NewRunner(store, db, dialect, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(v), organizationsrm.New()}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	t.Cleanup(func() { stop(); <-done })
	reader := &organizationsrm.Reader{DB: db}
	acc := &accounts.Service{Store: store, Vault: v}
	orgs, err := organizations.New(organizations.Options{Store: store, Reader: reader, Projections: runner, Keys: acc})
	if err != nil {
		t.Fatal(err)
	}
	acc.Agents = orgs
	return &env{ctx: ctx, db: db, store: store, runner: runner, accounts: acc, orgs: orgs, reader: reader, keys: identityrm.Reader{DB: db}}
}

func openSQLite(t *testing.T) *sql.DB {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "wb.db")+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func openPostgres(t *testing.T) *sql.DB {
	db, err := sql.Open("pgx", testenv.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestReadModelSQLite(t *testing.T) { testReadModel(t, setup(t, openSQLite(t), migrations.SQLite)) }
func TestReadModelPostgres(t *testing.T) {
	testReadModel(t, setup(t, openPostgres(t), migrations.Postgres))
}

var md = eventstore.Metadata{Actor: "test"}

func (e *env) user(t *testing.T, email string) accounts.User {
	t.Helper()
	u, _, pos, err := e.accounts.EnsureUser(e.ctx, email, "", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.runner.WaitFor(e.ctx, pos); err != nil {
		t.Fatal(err)
	}
	return u
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testReadModel(t *testing.T, e *env) {
	ada, bob, dan := e.user(t, "ada@example.com"), e.user(t, "bob@example.com"), e.user(t, "dan@example.com")

	// Ada's first sign-in: a personal organisation with her default agent.
	must(t, e.orgs.SignedIn(e.ctx, ada.ID, ada.Email, md))
	must(t, e.orgs.SignedIn(e.ctx, ada.ID, ada.Email, md)) // a second sign-in changes nothing
	personal := organization.PersonalOrganizationID(ada.ID)
	def := organization.DefaultAgentID(ada.ID)
	if c, err := e.reader.Chain(e.ctx, def); err != nil || c != (organizationsrm.Chain{OrganizationID: personal, AgentID: def}) {
		t.Fatalf("chain of the default agent: %+v %v", c, err)
	}
	if got, err := e.reader.DefaultAgent(e.ctx, ada.ID); err != nil || got != def {
		t.Fatalf("DefaultAgent: %s %v", got, err)
	}
	// Bob has not signed in: his default agent's id is known all the same, and has no chain yet.
	if got, err := e.reader.DefaultAgent(e.ctx, bob.ID); err != nil || got != organization.DefaultAgentID(bob.ID) {
		t.Fatalf("DefaultAgent before the backfill: %s %v", got, err)
	}
	if _, err := e.reader.Chain(e.ctx, organization.DefaultAgentID(bob.ID)); !errors.Is(err, organizationsrm.ErrNotFound) {
		t.Fatalf("chain before the backfill: %v", err)
	}
	bobDefault := organizationsrm.Chain{OrganizationID: organization.PersonalOrganizationID(bob.ID), AgentID: organization.DefaultAgentID(bob.ID)}
	if c, err := e.reader.ChainFor(e.ctx, bob.ID, organization.DefaultAgentID(bob.ID)); err != nil || c != bobDefault {
		t.Fatalf("ChainFor before the backfill: %+v %v", c, err)
	}
	if _, err := e.reader.ChainFor(e.ctx, bob.ID, organization.DefaultAgentID(dan.ID)); !errors.Is(err, organizationsrm.ErrNotFound) {
		t.Fatalf("ChainFor of another user's default agent that has no row: %v", err)
	}

	// Acme: Ada owns it, invites Bob (a user) and Cy (no user yet); both are pending until accepted.
	acme, err := e.orgs.Create(e.ctx, ada.ID, ada.Email, "Acme", md)
	must(t, err)
	inv, err := e.orgs.Invite(e.ctx, ada.ID, acme, "BOB@example.com", organization.RoleAdmin, md)
	if err != nil || inv.Email != "bob@example.com" {
		t.Fatalf("invite bob: %+v %v", inv, err)
	}
	accept := func(u uuid.UUID, email string) {
		t.Helper()
		invs, err := e.orgs.PendingInvitations(e.ctx, email)
		if err != nil || len(invs) != 1 || invs[0].OrganizationID != acme {
			t.Fatalf("%s's pending invitations: %+v %v", email, invs, err)
		}
		_, err = e.orgs.AcceptInvitation(e.ctx, u, email, invs[0].ID, md)
		must(t, err)
	}
	accept(bob.ID, bob.Email)
	inv, err = e.orgs.Invite(e.ctx, bob.ID, acme, "cy@example.com", organization.RoleMember, md)
	if err != nil || inv.Email != "cy@example.com" {
		t.Fatalf("invite cy: %+v %v", inv, err)
	}
	if invs, err := e.reader.InvitationsFor(e.ctx, "cy@example.com", ""); err != nil || len(invs) != 1 || invs[0].OrganizationID != acme || invs[0].InvitedBy != bob.ID {
		t.Fatalf("cy's invitations: %+v %v", invs, err)
	}
	cy := e.user(t, "cy@example.com")
	must(t, e.orgs.SignedIn(e.ctx, cy.ID, cy.Email, md))
	accept(cy.ID, cy.Email)
	if invs, err := e.reader.Invitations(e.ctx, acme); err != nil || len(invs) != 0 {
		t.Fatalf("acme's invitations after cy accepted: %+v %v", invs, err)
	}
	members, err := e.reader.Members(e.ctx, acme)
	must(t, err)
	roles := map[string]organization.Role{}
	for _, m := range members {
		roles[m.Email] = m.Role
	}
	if diff := cmp.Diff(map[string]organization.Role{"ada@example.com": "owner", "bob@example.com": "admin", "cy@example.com": "member"}, roles); diff != "" {
		t.Fatalf("members (-want +got):\n%s", diff)
	}
	if ms, err := e.reader.Memberships(e.ctx, cy.ID); err != nil || len(ms) != 2 || !ms[0].Personal || ms[1].ID != acme || ms[1].Role != organization.RoleMember {
		t.Fatalf("cy's memberships: %+v %v", ms, err)
	}
	if _, err := e.reader.Membership(e.ctx, acme, dan.ID); !errors.Is(err, organizationsrm.ErrNotFound) {
		t.Fatalf("dan's membership of acme: %v", err)
	}

	// A guild with Cy in it, and Cy's agent there.
	research, err := e.orgs.CreateGuild(e.ctx, bob.ID, acme, "Research", md)
	must(t, err)
	must(t, e.orgs.AddGuildMember(e.ctx, ada.ID, acme, research, cy.ID, md))
	crawler, err := e.orgs.CreateAgent(e.ctx, cy.ID, acme, "crawler", research, md)
	must(t, err)
	if c, err := e.reader.Chain(e.ctx, crawler); err != nil || c != (organizationsrm.Chain{OrganizationID: acme, GuildID: research, AgentID: crawler}) {
		t.Fatalf("chain of the crawler: %+v %v", c, err)
	}
	if g, err := e.reader.Guild(e.ctx, research); err != nil || g.Name != "Research" || !cmp.Equal(g.Members, []uuid.UUID{cy.ID}) {
		t.Fatalf("guild: %+v %v", g, err)
	}
	if _, err := e.orgs.CreateAgent(e.ctx, dan.ID, acme, "intruder", uuid.Nil, md); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("an outsider's agent: %v, want not found", err)
	}

	// An API key for the crawler acts as the crawler; Ada's key from before agents acts as her default.
	key, _, err := e.accounts.MintAgentKey(e.ctx, cy.ID, crawler, md)
	must(t, err)
	legacy, pos, err := e.accounts.MintKey(e.ctx, ada.ID, md)
	must(t, err)
	must(t, e.runner.WaitFor(e.ctx, pos))
	if o, err := e.keys.OwnerByKeyHash(e.ctx, identitydom.HashAPIKey(key.Secret)); err != nil || o.AgentID != crawler || o.User.ID != cy.ID {
		t.Fatalf("owner of the crawler's key: %+v %v", o, err)
	}
	if o, err := e.keys.OwnerByKeyHash(e.ctx, identitydom.HashAPIKey(legacy.Secret)); err != nil || o.AgentID != def {
		t.Fatalf("owner of ada's key: %+v %v", o, err)
	}
	if _, _, err := e.accounts.MintAgentKey(e.ctx, ada.ID, crawler, md); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("a key for someone else's agent: %v, want not found", err)
	}

	// Renaming and deleting the guild: the crawler stays, in no guild.
	must(t, e.orgs.RenameGuild(e.ctx, ada.ID, acme, research, "R&D", md))
	must(t, e.orgs.DeleteGuild(e.ctx, ada.ID, acme, research, md))
	if c, err := e.reader.Chain(e.ctx, crawler); err != nil || c != (organizationsrm.Chain{OrganizationID: acme, AgentID: crawler}) {
		t.Fatalf("chain after the guild went: %+v %v", c, err)
	}
	if gs, err := e.reader.Guilds(e.ctx, acme); err != nil || len(gs) != 0 {
		t.Fatalf("guilds: %+v %v", gs, err)
	}

	// The backfill gives Bob and Dan (never signed in) their personal organisations, and only them.
	n, err := e.orgs.Backfill(e.ctx, md)
	if err != nil || n != 2 {
		t.Fatalf("backfill: %d %v, want 2", n, err)
	}
	if n, err := e.orgs.Backfill(e.ctx, md); err != nil || n != 0 {
		t.Fatalf("second backfill: %d %v, want 0", n, err)
	}
	if c, err := e.reader.Chain(e.ctx, organization.DefaultAgentID(bob.ID)); err != nil || c.OrganizationID != organization.PersonalOrganizationID(bob.ID) {
		t.Fatalf("bob's default agent after the backfill: %+v %v", c, err)
	}

	// A rebuild from the log gives the same tables.
	before := dump(t, e)
	must(t, e.runner.Rebuild(e.ctx, organizationsrm.Name))
	if diff := cmp.Diff(before, dump(t, e)); diff != "" {
		t.Fatalf("rebuild differs (-before +after):\n%s", diff)
	}

	// Cy is removed: the crawler is deleted, its key revoked, its chain gone.
	must(t, e.orgs.RemoveMember(e.ctx, bob.ID, acme, cy.ID, md))
	if _, err := e.reader.Chain(e.ctx, crawler); !errors.Is(err, organizationsrm.ErrNotFound) {
		t.Fatalf("chain of a deleted agent: %v", err)
	}
	u, err := e.accounts.User(e.ctx, cy.ID)
	must(t, err)
	st, _, err := eventstore.LoadState(e.ctx, e.store, identitydom.StreamName(cy.ID), accounts.Users)
	must(t, err)
	if _, live := st.LiveKeyFor(crawler); live {
		t.Fatalf("the deleted agent's key of %s is still live", u.Email)
	}
}

func dump(t *testing.T, e *env) map[string][][]string {
	t.Helper()
	out := map[string][][]string{}
	for _, table := range []string{"organizations", "org_members", "org_invitations", "guilds", "guild_members", "agents"} {
		rows, err := projectiontest.DumpTable(e.ctx, e.db, table)
		must(t, err)
		// DumpTable orders by the first column only, which is not unique in every table.
		slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
		out[table] = rows
	}
	return out
}
