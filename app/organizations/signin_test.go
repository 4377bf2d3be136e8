package organizations_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/compliance"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/migrations"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// Sign-in is where a user gets their personal organisation: the one-time link (what the startup link
// and `workbench signin-link` issue) makes it before the link exists. An invitation of the address,
// made before the user existed, waits for the user's answer: sign-in joins nothing.
func TestSignInMakesThePersonalOrganizationAndLeavesInvitationsPending(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := testenv.OpenSQLite(t)
	v := testenv.Vault(t, db.DB, db.Store)
	runner, err := projections.NewRunner(db.Store, db.DB, migrations.SQLite, &projections.Options{
		Projections: []projections.Projection{identityrm.New().WithOpener(v), organizationsrm.New().WithInviteeKey(inviteeKey)}, PollInterval: 20 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- runner.Run(rctx) }()
	defer func() { stop(); <-done }()
	reader := &organizationsrm.Reader{DB: db.DB}
	acc := &accounts.Service{Store: db.Store, Vault: v}
	orgs, err := organizations.New(organizations.Options{Store: db.Store, Reader: reader, Projections: runner, Keys: acc, Vault: v, InviteeKey: inviteeKey})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := signin.New(signin.Config{Users: acc, Store: db.Store, Vault: v, Projections: runner, Organizations: orgs,
		PublicURL: "http://127.0.0.1:8080", FlowKey: []byte(strings.Repeat("k", 32))})
	if err != nil {
		t.Fatal(err)
	}
	md := eventstore.Metadata{Actor: "test"}

	// Ada signs in and invites an address nobody uses yet.
	if _, err := svc.IssueLink(ctx, "ada@example.com", "test"); err != nil {
		t.Fatal(err)
	}
	ada, _, _, err := acc.EnsureUser(ctx, "ada@example.com", "", md)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := reader.Chain(ctx, organization.DefaultAgentID(ada.ID)); err != nil || c.OrganizationID != organization.PersonalOrganizationID(ada.ID) {
		t.Fatalf("ada's default agent after sign-in: %+v %v", c, err)
	}
	acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
	if err != nil {
		t.Fatal(err)
	}
	if inv, err := orgs.Invite(ctx, ada.ID, acme, "Bob@Example.com", organization.RoleAdmin, md); err != nil || inv.Email != "bob@example.com" {
		t.Fatalf("invite bob: %+v %v", inv, err)
	}

	// Bob's first sign-in: his personal organisation; Acme's invitation is his to answer.
	if _, err := svc.IssueLink(ctx, "bob@example.com", "test"); err != nil {
		t.Fatal(err)
	}
	bob, _, _, err := acc.EnsureUser(ctx, "bob@example.com", "", md)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := reader.Memberships(ctx, bob.ID)
	if err != nil || len(ms) != 1 || !ms[0].Personal {
		t.Fatalf("bob's memberships after sign-in: %+v %v", ms, err)
	}
	pending, err := orgs.PendingInvitations(ctx, bob.Email)
	if err != nil || len(pending) != 1 || pending[0].OrganizationID != acme || pending[0].OrganizationName != "Acme" || pending[0].Role != organization.RoleAdmin {
		t.Fatalf("bob's pending invitations: %+v %v", pending, err)
	}
	// The log names the address by its keyed hash; the admin's list reads it unsealed.
	if want := organization.InvitationIDOfHash(acme, organization.InviteeHash(inviteeKey, "bob@example.com")); pending[0].ID != want {
		t.Fatalf("bob's invitation id: %s, want %s (derived from the organisation and the hash)", pending[0].ID, want)
	}
	if invs, err := orgs.Invitations(ctx, acme); err != nil || len(invs) != 1 || invs[0].Email != "bob@example.com" || invs[0].Erased || invs[0].ID != pending[0].ID {
		t.Fatalf("acme's invitations as its admins see them: %+v %v", invs, err)
	}
	if org, err := orgs.AcceptInvitation(ctx, bob.ID, bob.Email, pending[0].ID, md); err != nil || org != acme {
		t.Fatalf("accept: %v %v", org, err)
	}
	ms, err = reader.Memberships(ctx, bob.ID)
	if err != nil || len(ms) != 2 || ms[1].ID != acme || ms[1].Role != organization.RoleAdmin {
		t.Fatalf("bob's memberships after accepting: %+v %v", ms, err)
	}
	if invs, err := reader.Invitations(ctx, acme); err != nil || len(invs) != 0 {
		t.Fatalf("acme's invitations: %+v %v", invs, err)
	}
	// Members are listed by their address, which the log holds sealed.
	if members, err := reader.Members(ctx, acme); err != nil || len(members) != 2 || members[0].Email != "ada@example.com" || members[1].Email != "bob@example.com" {
		t.Fatalf("acme's members: %+v %v", members, err)
	}

	// Bob is erased. Inviting his address again answers as for an address nobody uses: he is not made
	// a member again, and nothing fails for want of his (shredded) data key.
	gamma, err := orgs.Create(ctx, ada.ID, ada.Email, "Gamma", md)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := orgs.Invite(ctx, ada.ID, gamma, "bob@example.com", organization.RoleMember, md); err != nil {
		t.Fatal(err)
	}
	eraser := &compliance.Eraser{Store: db.Store, Vault: v, PseudonymKey: []byte(strings.Repeat("p", 32)), InviteeKey: inviteeKey}
	erased, err := eraser.EraseUser(ctx, "bob@example.com", md)
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.WaitFor(ctx, erased.Position); err != nil {
		t.Fatal(err)
	}
	// No event holds his address readable any more; his pending invitation shows as erased.
	for pos := eventstore.Start; ; {
		envs, err := db.Store.ReadAll(ctx, pos, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			break
		}
		for _, env := range envs {
			if strings.Contains(strings.ToLower(string(env.Data)), "bob@") {
				t.Errorf("%s at %v holds bob's address after his erasure: %s", env.Type, env.Position, env.Data)
			}
		}
		pos = envs[len(envs)-1].Position
	}
	if invs, err := orgs.Invitations(ctx, gamma); err != nil || len(invs) != 1 || !invs[0].Erased || !strings.HasPrefix(invs[0].Email, "erased-") {
		t.Fatalf("gamma's invitation of the erased address: %+v %v", invs, err)
	}
	beta, err := orgs.Create(ctx, ada.ID, ada.Email, "Beta", md)
	if err != nil {
		t.Fatal(err)
	}
	if inv, err := orgs.Invite(ctx, ada.ID, beta, "bob@example.com", organization.RoleMember, md); err != nil || inv.Email != "bob@example.com" {
		t.Fatalf("invite of the erased address: %+v %v; want an invitation like any unknown address's", inv, err)
	}
	if members, err := reader.Members(ctx, beta); err != nil || len(members) != 1 {
		t.Fatalf("beta's members after inviting the erased address: %+v %v; want ada alone", members, err)
	}
	if members, err := reader.Members(ctx, acme); err != nil || len(members) != 2 || members[1].Email != erased.Pseudonym && members[0].Email != erased.Pseudonym {
		t.Fatalf("acme's members after bob's erasure: %+v %v; want his pseudonym", members, err)
	}
}

// inviteeKey keys the hash that names invited addresses in these tests' logs.
var inviteeKey = []byte(strings.Repeat("i", 32))
