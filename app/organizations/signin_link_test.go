package organizations_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/workbench/workbench/app/accounts"
	"github.com/workbench/workbench/app/organizations"
	"github.com/workbench/workbench/app/signin"
	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/testenv"
	"github.com/workbench/workbench/projections"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// noWait is the waiter `workbench signin-link` gives its sign-in service: the command reads no read
// model.
type noWait struct{}

func (noWait) WaitFor(context.Context, eventstore.Position) error { return nil }

// A link issued by `workbench signin-link` (a sign-in service without the organisations service, as
// the command builds it) to an address invited before it had a user: redeeming it on the server is
// where the sign-in completes, so the user has their personal organisation and sees the invitation
// pending, and accepting it makes them a member at once. Before this, such a user landed in no
// organisation at all.
func TestRedeemingALinkMakesThePersonalOrganization(t *testing.T) {
	for _, backend := range testenv.Backends {
		t.Run(backend.String(), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			n := testenv.Open(t, backend)
			runner, err := projections.NewRunner(n.Store, n.DB, n.Dialect, &projections.Options{
				Projections: []projections.Projection{identityrm.New().WithOpener(n.Vault), organizationsrm.New().WithInviteeKey(inviteeKey)}, PollInterval: 20 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			rctx, stop := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- runner.Run(rctx) }()
			defer func() { stop(); <-done }()
			reader := &organizationsrm.Reader{DB: n.DB}
			acc := &accounts.Service{Store: n.Store, Vault: n.Vault}
			orgs, err := organizations.New(organizations.Options{Store: n.Store, Reader: reader, Projections: runner, Keys: acc, Vault: n.Vault, InviteeKey: inviteeKey})
			if err != nil {
				t.Fatal(err)
			}
			const public = "http://127.0.0.1:8080"
			flowKey := []byte(strings.Repeat("k", 32))
			server, err := signin.New(signin.Config{Users: acc, Store: n.Store, Vault: n.Vault, Projections: runner, Organizations: orgs, PublicURL: public, FlowKey: flowKey})
			if err != nil {
				t.Fatal(err)
			}
			cli, err := signin.New(signin.Config{Users: acc, Store: n.Store, Vault: n.Vault, Projections: noWait{}, PublicURL: public, FlowKey: flowKey})
			if err != nil {
				t.Fatal(err)
			}
			md := eventstore.Metadata{Actor: "test"}
			token := func(link string) string {
				t.Helper()
				u, err := url.Parse(link)
				if err != nil || !strings.HasPrefix(u.Path, signin.LinkPath) {
					t.Fatalf("sign-in link %q", link)
				}
				return strings.TrimPrefix(u.Path, signin.LinkPath)
			}

			ada, _, _, err := acc.EnsureUser(ctx, "ada@example.com", "", md)
			if err != nil {
				t.Fatal(err)
			}
			acme, err := orgs.Create(ctx, ada.ID, ada.Email, "Acme", md)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := orgs.Invite(ctx, ada.ID, acme, "carol@example.com", organization.RoleMember, md); err != nil {
				t.Fatal(err)
			}

			link, err := cli.IssueLink(ctx, "carol@example.com", "cli")
			if err != nil {
				t.Fatal(err)
			}
			carol, _, _, err := acc.EnsureUser(ctx, "carol@example.com", "", md)
			if err != nil {
				t.Fatal(err)
			}
			if err := runner.WaitFor(ctx, mustHead(ctx, t, n.Store)); err != nil {
				t.Fatal(err)
			}
			// Issuing the link signed nobody in: the command made the user and nothing else.
			if ms, err := reader.Memberships(ctx, carol.ID); err != nil || len(ms) != 0 {
				t.Fatalf("carol's memberships before she used the link: %+v %v; want none", ms, err)
			}

			got, err := server.RedeemLink(ctx, token(link))
			if err != nil || got != carol.ID {
				t.Fatalf("redeem carol's link: %v %v; want %v", got, err, carol.ID)
			}
			ms, err := reader.Memberships(ctx, carol.ID)
			if err != nil || len(ms) != 1 || !ms[0].Personal || ms[0].ID != organization.PersonalOrganizationID(carol.ID) || ms[0].Role != organization.RoleOwner {
				t.Fatalf("carol's memberships after signing in with the link: %+v %v; want her personal organisation, as owner", ms, err)
			}
			pending, err := orgs.PendingInvitations(ctx, carol.Email)
			if err != nil || len(pending) != 1 || pending[0].OrganizationID != acme || pending[0].OrganizationName != "Acme" {
				t.Fatalf("carol's pending invitations after signing in: %+v %v; want Acme's", pending, err)
			}
			if invs, err := orgs.Invitations(ctx, acme); err != nil || len(invs) != 1 || invs[0].Email != "carol@example.com" {
				t.Fatalf("acme's invitations before carol answers: %+v %v; want hers, pending", invs, err)
			}

			// The link works once; a second try changes nothing.
			if _, err := server.RedeemLink(ctx, token(link)); domain.ErrorCode(err) != domain.CodeConflict {
				t.Fatalf("second redemption: %v; want a conflict (used)", err)
			}
			// A second link, issued by the server, signs her in again without a second organisation.
			again, err := server.IssueLink(ctx, "carol@example.com", "test")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := server.RedeemLink(ctx, token(again)); err != nil {
				t.Fatal(err)
			}
			if ms, err := reader.Memberships(ctx, carol.ID); err != nil || len(ms) != 1 {
				t.Fatalf("carol's memberships after a second sign-in: %+v %v; want her personal organisation alone", ms, err)
			}

			if org, err := orgs.AcceptInvitation(ctx, carol.ID, carol.Email, pending[0].ID, md); err != nil || org != acme {
				t.Fatalf("accept: %v %v", org, err)
			}
			ms, err = reader.Memberships(ctx, carol.ID)
			if err != nil || len(ms) != 2 {
				t.Fatalf("carol's memberships after accepting: %+v %v; want two", ms, err)
			}
			var inAcme bool
			for _, m := range ms {
				inAcme = inAcme || m.ID == acme && m.Role == organization.RoleMember
			}
			if !inAcme {
				t.Fatalf("carol's memberships after accepting: %+v; want Acme, as member", ms)
			}
			if invs, err := orgs.Invitations(ctx, acme); err != nil || len(invs) != 0 {
				t.Fatalf("acme's invitations after carol accepted: %+v %v; want none", invs, err)
			}
		})
	}
}

// mustHead is the position of the last event of the log.
func mustHead(ctx context.Context, t *testing.T, store eventstore.Store) eventstore.Position {
	t.Helper()
	pos := eventstore.Start
	for {
		envs, err := store.ReadAll(ctx, pos, 500)
		if err != nil {
			t.Fatal(err)
		}
		if len(envs) == 0 {
			return pos
		}
		pos = envs[len(envs)-1].Position
	}
}
