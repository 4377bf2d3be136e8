package organization_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
)

var (
	ada   = uuid.MustParse("11111111-1111-4111-8111-111111111111") // owner
	bob   = uuid.MustParse("22222222-2222-4222-8222-222222222222") // admin
	cy    = uuid.MustParse("33333333-3333-4333-8333-333333333333") // member
	dee   = uuid.MustParse("44444444-4444-4444-8444-444444444444") // outsider
	org   = uuid.MustParse("0a0a0a0a-0000-4000-8000-000000000001")
	guild = uuid.MustParse("0b0b0b0b-0000-4000-8000-000000000001")
	g2    = uuid.MustParse("0b0b0b0b-0000-4000-8000-000000000002")
	agCy  = uuid.MustParse("0c0c0c0c-0000-4000-8000-000000000001") // cy's agent in guild
	agBob = uuid.MustParse("0c0c0c0c-0000-4000-8000-000000000002") // bob's agent, no guild
	agNew = uuid.MustParse("0c0c0c0c-0000-4000-8000-000000000003")

	t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

// The history most cases start from: Acme, with ada the owner, bob an admin, cy a member in guild
// "Research" with an agent there, bob's agent in no guild, and a pending invitation of eve.
var (
	created   = organization.OrganizationCreated{OrganizationID: org, Name: "Acme", CreatedBy: ada, CreatedAt: t0}
	adaJoined = organization.MemberAdded{OrganizationID: org, UserID: ada, Email: "ada@example.com", Role: organization.RoleOwner, AddedBy: ada, At: t0}
	bobJoined = organization.MemberAdded{OrganizationID: org, UserID: bob, Email: "bob@example.com", Role: organization.RoleAdmin, AddedBy: ada, At: t0}
	cyJoined  = organization.MemberAdded{OrganizationID: org, UserID: cy, Email: "cy@example.com", Role: organization.RoleMember, AddedBy: ada, At: t0}
	guildMade = organization.GuildCreated{OrganizationID: org, GuildID: guild, Name: "Research", CreatedBy: ada, At: t0}
	cyInGuild = organization.GuildMemberAdded{OrganizationID: org, GuildID: guild, UserID: cy, AddedBy: ada, At: t0}
	cyAgent   = organization.AgentCreated{OrganizationID: org, AgentID: agCy, OwnerID: cy, Name: "crawler", GuildID: guild, CreatedBy: cy, At: t0}
	bobAgent  = organization.AgentCreated{OrganizationID: org, AgentID: agBob, OwnerID: bob, Name: "ops", CreatedBy: bob, At: t0}
	eveInvite = organization.MemberInvited{OrganizationID: org, Email: "eve@example.com", Role: organization.RoleMember, InvitedBy: bob, At: t0}

	acme = []domain.Event{created, adaJoined, bobJoined, cyJoined, guildMade, cyInGuild, cyAgent, bobAgent, eveInvite}

	personal = []domain.Event{
		organization.OrganizationCreated{OrganizationID: organization.PersonalOrganizationID(ada), Name: "Personal", Personal: true, CreatedBy: ada, CreatedAt: t0},
		organization.MemberAdded{OrganizationID: organization.PersonalOrganizationID(ada), UserID: ada, Email: "ada@example.com", Role: organization.RoleOwner, AddedBy: ada, At: t0},
		organization.AgentCreated{OrganizationID: organization.PersonalOrganizationID(ada), AgentID: organization.DefaultAgentID(ada), OwnerID: ada, Name: organization.DefaultAgentName, Default: true, CreatedBy: ada, At: t0},
	}
)

func fold(history []domain.Event) organization.State {
	s := organization.Initial()
	for _, ev := range history {
		s = organization.Evolve(s, ev)
	}
	return s
}

func plus(h []domain.Event, evs ...domain.Event) []domain.Event {
	return append(append([]domain.Event(nil), h...), evs...)
}

type decideCase struct {
	name    string
	history []domain.Event
	cmd     organization.Command
	want    []domain.Event
	code    domain.Code // empty: succeeds with want
}

func runDecide(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := fold(tt.history)
			got, err := organization.Decide(before, tt.cmd)
			if tt.code != "" {
				var de *domain.Error
				if !errors.As(err, &de) || de.Code != tt.code {
					t.Fatalf("Decide = %v, %v; want a *domain.Error with code %s", got, err, tt.code)
				}
				if de.Message == "" || got != nil {
					t.Fatalf("refusal %v emitted %v or has no message", err, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
			after := fold(plus(tt.history, got...))
			checkInvariants(t, after)
			if diff := cmp.Diff(before, fold(tt.history)); diff != "" {
				t.Errorf("Decide or Evolve changed the state it was given (-before +after):\n%s", diff)
			}
		})
	}
}

// checkInvariants checks what every reachable state holds: an owner; every live agent's owner a
// member, in a live guild they belong to or in none (managers may place agents anywhere, so only the
// guild's existence is checked); no invitation for a member's address.
func checkInvariants(t *testing.T, s organization.State) {
	t.Helper()
	owners := 0
	for _, m := range s.Members {
		if m.Role == organization.RoleOwner {
			owners++
		}
		if _, ok := s.Invitations[m.Email]; ok {
			t.Errorf("member %s still has a pending invitation", m.Email)
		}
	}
	if owners == 0 {
		t.Error("the organisation has no owner")
	}
	for _, a := range s.Agents {
		if a.Deleted {
			continue
		}
		if _, ok := s.Members[a.OwnerID]; !ok {
			t.Errorf("agent %s is owned by %s, who is not a member", a.Name, a.OwnerID)
		}
		if a.GuildID != uuid.Nil {
			if _, ok := s.Guild(a.GuildID); !ok {
				t.Errorf("agent %s is in guild %s, which does not exist", a.Name, a.GuildID)
			}
		}
	}
}

func TestCreate(t *testing.T) {
	pid := organization.PersonalOrganizationID(ada)
	runDecide(t, []decideCase{
		{name: "an organisation", cmd: organization.CreateOrganization{OrganizationID: org, Name: " Acme ", Creator: ada, CreatorEmail: "Ada@Example.com", At: t0},
			want: []domain.Event{created, adaJoined}},
		{name: "a personal organisation has the default agent", cmd: organization.CreateOrganization{OrganizationID: pid, Name: "Personal", Personal: true, Creator: ada, CreatorEmail: "ada@example.com", At: t0},
			want: personal},
		{name: "personal again: nothing", history: personal, cmd: organization.CreateOrganization{OrganizationID: pid, Name: "Personal", Personal: true, Creator: ada, CreatorEmail: "ada@example.com", At: t1}},
		{name: "a personal id for another user", cmd: organization.CreateOrganization{OrganizationID: org, Name: "x", Personal: true, Creator: ada, CreatorEmail: "ada@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "an id taken by another creator", history: acme, cmd: organization.CreateOrganization{OrganizationID: org, Name: "x", Creator: dee, CreatorEmail: "dee@example.com", At: t0}, code: domain.CodeConflict},
		{name: "no name", cmd: organization.CreateOrganization{OrganizationID: org, Name: "  ", Creator: ada, CreatorEmail: "ada@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "a control character", cmd: organization.CreateOrganization{OrganizationID: org, Name: "a\x00b", Creator: ada, CreatorEmail: "ada@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "a bad address", cmd: organization.CreateOrganization{OrganizationID: org, Name: "Acme", Creator: ada, CreatorEmail: "ada", At: t0}, code: domain.CodeInvalid},
		{name: "no time", cmd: organization.CreateOrganization{OrganizationID: org, Name: "Acme", Creator: ada, CreatorEmail: "ada@example.com"}, code: domain.CodeInvalid},
		{name: "no creator", cmd: organization.CreateOrganization{OrganizationID: org, Name: "Acme", CreatorEmail: "ada@example.com", At: t0}, code: domain.CodeInvalid},
		{name: "rename by an admin", history: acme, cmd: organization.RenameOrganization{Actor: bob, Name: "Acme Ltd", At: t1},
			want: []domain.Event{organization.OrganizationRenamed{OrganizationID: org, Name: "Acme Ltd", RenamedBy: bob, At: t1}}},
		{name: "rename by a member", history: acme, cmd: organization.RenameOrganization{Actor: cy, Name: "x", At: t1}, code: domain.CodeForbidden},
		{name: "rename by an outsider is not found", history: acme, cmd: organization.RenameOrganization{Actor: dee, Name: "x", At: t1}, code: domain.CodeNotFound},
		{name: "rename a missing organisation", cmd: organization.RenameOrganization{Actor: ada, Name: "x", At: t1}, code: domain.CodeNotFound},
	})
}

func TestMembers(t *testing.T) {
	invited := func(email string, role organization.Role, by uuid.UUID) organization.MemberInvited {
		return organization.MemberInvited{OrganizationID: org, Email: email, Role: role, InvitedBy: by, At: t1}
	}
	runDecide(t, []decideCase{
		{name: "an admin invites a member", history: acme, cmd: organization.InviteMember{Actor: bob, Email: " Fay@Example.com", Role: organization.RoleMember, At: t1},
			want: []domain.Event{invited("fay@example.com", organization.RoleMember, bob)}},
		{name: "an owner invites an owner", history: acme, cmd: organization.InviteMember{Actor: ada, Email: "fay@example.com", Role: organization.RoleOwner, At: t1},
			want: []domain.Event{invited("fay@example.com", organization.RoleOwner, ada)}},
		{name: "an admin may not invite an owner", history: acme, cmd: organization.InviteMember{Actor: bob, Email: "fay@example.com", Role: organization.RoleOwner, At: t1}, code: domain.CodeForbidden},
		{name: "a member may not invite", history: acme, cmd: organization.InviteMember{Actor: cy, Email: "fay@example.com", Role: organization.RoleMember, At: t1}, code: domain.CodeForbidden},
		{name: "an outsider's invitation is not found", history: acme, cmd: organization.InviteMember{Actor: dee, Email: "fay@example.com", Role: organization.RoleMember, At: t1}, code: domain.CodeNotFound},
		{name: "an unknown role", history: acme, cmd: organization.InviteMember{Actor: ada, Email: "fay@example.com", Role: "boss", At: t1}, code: domain.CodeInvalid},
		{name: "a member's address", history: acme, cmd: organization.InviteMember{Actor: ada, Email: "cy@example.com", Role: organization.RoleAdmin, At: t1}, code: domain.CodeConflict},
		{name: "the same invitation again: nothing", history: acme, cmd: organization.InviteMember{Actor: ada, Email: "eve@example.com", Role: organization.RoleMember, At: t1}},
		{name: "re-invited with another role", history: acme, cmd: organization.InviteMember{Actor: ada, Email: "eve@example.com", Role: organization.RoleAdmin, At: t1},
			want: []domain.Event{invited("eve@example.com", organization.RoleAdmin, ada)}},
		{name: "revoke an invitation", history: acme, cmd: organization.RevokeInvitation{Actor: bob, Email: "eve@example.com", At: t1},
			want: []domain.Event{organization.InvitationRevoked{OrganizationID: org, Email: "eve@example.com", RevokedBy: bob, At: t1}}},
		{name: "revoke a missing invitation", history: acme, cmd: organization.RevokeInvitation{Actor: bob, Email: "zed@example.com", At: t1}, code: domain.CodeNotFound},
		{name: "the invitee accepts", history: acme, cmd: organization.AcceptInvitation{UserID: dee, Email: "EVE@example.com", At: t1},
			want: []domain.Event{organization.MemberAdded{OrganizationID: org, UserID: dee, Email: "eve@example.com", Role: organization.RoleMember, AddedBy: bob, Invited: true, At: t1}}},
		{name: "an acceptance without an invitation", history: acme, cmd: organization.AcceptInvitation{UserID: dee, Email: "dee@example.com", At: t1}, code: domain.CodeNotFound},
		{name: "the invitee declines", history: acme, cmd: organization.DeclineInvitation{UserID: dee, Email: "Eve@Example.com", At: t1},
			want: []domain.Event{organization.InvitationDeclined{OrganizationID: org, Email: "eve@example.com", UserID: dee, At: t1}}},
		{name: "a refusal without an invitation", history: acme, cmd: organization.DeclineInvitation{UserID: dee, Email: "dee@example.com", At: t1}, code: domain.CodeNotFound},
		{name: "an acceptance after a refusal", history: plus(acme, organization.InvitationDeclined{OrganizationID: org, Email: "eve@example.com", UserID: dee, At: t0}),
			cmd: organization.AcceptInvitation{UserID: dee, Email: "eve@example.com", At: t1}, code: domain.CodeNotFound},
		{name: "an invitation of a member's second address is retired", history: acme, cmd: organization.AcceptInvitation{UserID: cy, Email: "eve@example.com", At: t1},
			want: []domain.Event{organization.InvitationRevoked{OrganizationID: org, Email: "eve@example.com", RevokedBy: cy, At: t1}}},
		{name: "add an existing user", history: acme, cmd: organization.AddMember{Actor: bob, UserID: dee, Email: "dee@example.com", Role: organization.RoleAdmin, At: t1},
			want: []domain.Event{organization.MemberAdded{OrganizationID: org, UserID: dee, Email: "dee@example.com", Role: organization.RoleAdmin, AddedBy: bob, At: t1}}},
		{name: "add a member again", history: acme, cmd: organization.AddMember{Actor: bob, UserID: cy, Email: "cy@example.com", Role: organization.RoleMember, At: t1}, code: domain.CodeConflict},
		{name: "a member may not add", history: acme, cmd: organization.AddMember{Actor: cy, UserID: dee, Email: "dee@example.com", Role: organization.RoleMember, At: t1}, code: domain.CodeForbidden},

		{name: "an admin makes a member an admin", history: acme, cmd: organization.ChangeRole{Actor: bob, UserID: cy, Role: organization.RoleAdmin, At: t1},
			want: []domain.Event{organization.MemberRoleChanged{OrganizationID: org, UserID: cy, Role: organization.RoleAdmin, ChangedBy: bob, At: t1}}},
		{name: "an admin may not make an owner", history: acme, cmd: organization.ChangeRole{Actor: bob, UserID: cy, Role: organization.RoleOwner, At: t1}, code: domain.CodeForbidden},
		{name: "an admin may not demote an owner", history: plus(acme, organization.MemberRoleChanged{OrganizationID: org, UserID: cy, Role: organization.RoleOwner, ChangedBy: ada, At: t0}),
			cmd: organization.ChangeRole{Actor: bob, UserID: cy, Role: organization.RoleMember, At: t1}, code: domain.CodeForbidden},
		{name: "the last owner keeps the role", history: acme, cmd: organization.ChangeRole{Actor: ada, UserID: ada, Role: organization.RoleAdmin, At: t1}, code: domain.CodeConflict},
		{name: "an owner steps down when another owner exists", history: plus(acme, organization.MemberRoleChanged{OrganizationID: org, UserID: bob, Role: organization.RoleOwner, ChangedBy: ada, At: t0}),
			cmd:  organization.ChangeRole{Actor: ada, UserID: ada, Role: organization.RoleMember, At: t1},
			want: []domain.Event{organization.MemberRoleChanged{OrganizationID: org, UserID: ada, Role: organization.RoleMember, ChangedBy: ada, At: t1}}},
		{name: "a member may not change roles", history: acme, cmd: organization.ChangeRole{Actor: cy, UserID: cy, Role: organization.RoleAdmin, At: t1}, code: domain.CodeForbidden},
		{name: "the role of a non-member", history: acme, cmd: organization.ChangeRole{Actor: ada, UserID: dee, Role: organization.RoleAdmin, At: t1}, code: domain.CodeNotFound},
		{name: "the same role: nothing", history: acme, cmd: organization.ChangeRole{Actor: ada, UserID: cy, Role: organization.RoleMember, At: t1}},

		{name: "an admin removes a member with their agents", history: acme, cmd: organization.RemoveMember{Actor: bob, UserID: cy, At: t1},
			want: []domain.Event{
				organization.AgentDeleted{OrganizationID: org, AgentID: agCy, DeletedBy: bob, At: t1},
				organization.MemberRemoved{OrganizationID: org, UserID: cy, RemovedBy: bob, At: t1},
			}},
		{name: "a member leaves", history: acme, cmd: organization.RemoveMember{Actor: cy, UserID: cy, At: t1},
			want: []domain.Event{
				organization.AgentDeleted{OrganizationID: org, AgentID: agCy, DeletedBy: cy, At: t1},
				organization.MemberRemoved{OrganizationID: org, UserID: cy, RemovedBy: cy, At: t1},
			}},
		{name: "a member may not remove another", history: acme, cmd: organization.RemoveMember{Actor: cy, UserID: bob, At: t1}, code: domain.CodeForbidden},
		{name: "an admin may not remove an owner", history: acme, cmd: organization.RemoveMember{Actor: bob, UserID: ada, At: t1}, code: domain.CodeForbidden},
		{name: "the last owner may not leave", history: acme, cmd: organization.RemoveMember{Actor: ada, UserID: ada, At: t1}, code: domain.CodeConflict},
		{name: "the personal owner may not leave", history: plus(personal, organization.MemberAdded{OrganizationID: organization.PersonalOrganizationID(ada), UserID: bob, Email: "bob@example.com", Role: organization.RoleOwner, AddedBy: ada, At: t0}),
			cmd: organization.RemoveMember{Actor: bob, UserID: ada, At: t1}, code: domain.CodeConflict},
		{name: "remove a non-member", history: acme, cmd: organization.RemoveMember{Actor: ada, UserID: dee, At: t1}, code: domain.CodeNotFound},
		{name: "an outsider removing is not found", history: acme, cmd: organization.RemoveMember{Actor: dee, UserID: cy, At: t1}, code: domain.CodeNotFound},
	})
}

func TestGuilds(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "an admin creates a guild", history: acme, cmd: organization.CreateGuild{Actor: bob, GuildID: g2, Name: "Ops", At: t1},
			want: []domain.Event{organization.GuildCreated{OrganizationID: org, GuildID: g2, Name: "Ops", CreatedBy: bob, At: t1}}},
		{name: "a member may not create a guild", history: acme, cmd: organization.CreateGuild{Actor: cy, GuildID: g2, Name: "Ops", At: t1}, code: domain.CodeForbidden},
		{name: "an outsider's guild is not found", history: acme, cmd: organization.CreateGuild{Actor: dee, GuildID: g2, Name: "Ops", At: t1}, code: domain.CodeNotFound},
		{name: "a taken name, in another case", history: acme, cmd: organization.CreateGuild{Actor: ada, GuildID: g2, Name: "research", At: t1}, code: domain.CodeConflict},
		{name: "a used id", history: acme, cmd: organization.CreateGuild{Actor: ada, GuildID: guild, Name: "Ops", At: t1}, code: domain.CodeConflict},
		{name: "rename", history: acme, cmd: organization.RenameGuild{Actor: ada, GuildID: guild, Name: "R&D", At: t1},
			want: []domain.Event{organization.GuildRenamed{OrganizationID: org, GuildID: guild, Name: "R&D", RenamedBy: ada, At: t1}}},
		{name: "rename a missing guild", history: acme, cmd: organization.RenameGuild{Actor: ada, GuildID: g2, Name: "x", At: t1}, code: domain.CodeNotFound},
		{name: "delete moves the agents out", history: acme, cmd: organization.DeleteGuild{Actor: bob, GuildID: guild, At: t1},
			want: []domain.Event{
				organization.AgentMoved{OrganizationID: org, AgentID: agCy, MovedBy: bob, At: t1},
				organization.GuildDeleted{OrganizationID: org, GuildID: guild, DeletedBy: bob, At: t1},
			}},
		{name: "a member may not delete", history: acme, cmd: organization.DeleteGuild{Actor: cy, GuildID: guild, At: t1}, code: domain.CodeForbidden},
		{name: "a deleted guild is gone", history: plus(acme, organization.AgentMoved{OrganizationID: org, AgentID: agCy, MovedBy: ada, At: t0}, organization.GuildDeleted{OrganizationID: org, GuildID: guild, DeletedBy: ada, At: t0}),
			cmd: organization.AddGuildMember{Actor: ada, GuildID: guild, UserID: bob, At: t1}, code: domain.CodeNotFound},
		{name: "add a guild member", history: acme, cmd: organization.AddGuildMember{Actor: ada, GuildID: guild, UserID: bob, At: t1},
			want: []domain.Event{organization.GuildMemberAdded{OrganizationID: org, GuildID: guild, UserID: bob, AddedBy: ada, At: t1}}},
		{name: "a non-member cannot join a guild", history: acme, cmd: organization.AddGuildMember{Actor: ada, GuildID: guild, UserID: dee, At: t1}, code: domain.CodeNotFound},
		{name: "a member may not add to a guild", history: acme, cmd: organization.AddGuildMember{Actor: cy, GuildID: guild, UserID: bob, At: t1}, code: domain.CodeForbidden},
		{name: "add again: nothing", history: acme, cmd: organization.AddGuildMember{Actor: ada, GuildID: guild, UserID: cy, At: t1}},
		{name: "leave a guild: the agents move out", history: acme, cmd: organization.RemoveGuildMember{Actor: cy, GuildID: guild, UserID: cy, At: t1},
			want: []domain.Event{
				organization.AgentMoved{OrganizationID: org, AgentID: agCy, MovedBy: cy, At: t1},
				organization.GuildMemberRemoved{OrganizationID: org, GuildID: guild, UserID: cy, RemovedBy: cy, At: t1},
			}},
		{name: "remove a non-member of the guild", history: acme, cmd: organization.RemoveGuildMember{Actor: ada, GuildID: guild, UserID: bob, At: t1}, code: domain.CodeNotFound},
	})
}

func TestAgents(t *testing.T) {
	runDecide(t, []decideCase{
		{name: "a member creates an agent in their guild", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: "writer", GuildID: guild, At: t1},
			want: []domain.Event{organization.AgentCreated{OrganizationID: org, AgentID: agNew, OwnerID: cy, Name: "writer", GuildID: guild, CreatedBy: cy, At: t1}}},
		{name: "a member creates an agent in no guild", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: "writer", At: t1},
			want: []domain.Event{organization.AgentCreated{OrganizationID: org, AgentID: agNew, OwnerID: cy, Name: "writer", CreatedBy: cy, At: t1}}},
		{name: "not in a guild the member is not in", history: plus(acme, organization.GuildCreated{OrganizationID: org, GuildID: g2, Name: "Ops", CreatedBy: ada, At: t0}),
			cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: "writer", GuildID: g2, At: t1}, code: domain.CodeForbidden},
		{name: "an admin may use any guild", history: acme, cmd: organization.CreateAgent{Actor: bob, AgentID: agNew, Name: "writer", GuildID: guild, At: t1},
			want: []domain.Event{organization.AgentCreated{OrganizationID: org, AgentID: agNew, OwnerID: bob, Name: "writer", GuildID: guild, CreatedBy: bob, At: t1}}},
		{name: "a missing guild", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: "writer", GuildID: g2, At: t1}, code: domain.CodeNotFound},
		{name: "a name the owner already uses", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: "CRAWLER", At: t1}, code: domain.CodeConflict},
		{name: "another owner may use the name", history: acme, cmd: organization.CreateAgent{Actor: bob, AgentID: agNew, Name: "crawler", At: t1},
			want: []domain.Event{organization.AgentCreated{OrganizationID: org, AgentID: agNew, OwnerID: bob, Name: "crawler", CreatedBy: bob, At: t1}}},
		{name: "an outsider's agent is not found", history: acme, cmd: organization.CreateAgent{Actor: dee, AgentID: agNew, Name: "x", At: t1}, code: domain.CodeNotFound},
		{name: "a used agent id", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agCy, Name: "x", At: t1}, code: domain.CodeConflict},
		{name: "a name too long", history: acme, cmd: organization.CreateAgent{Actor: cy, AgentID: agNew, Name: string(make([]rune, 101)), At: t1}, code: domain.CodeInvalid},
		{name: "the owner renames", history: acme, cmd: organization.RenameAgent{Actor: cy, AgentID: agCy, Name: "spider", At: t1},
			want: []domain.Event{organization.AgentRenamed{OrganizationID: org, AgentID: agCy, Name: "spider", RenamedBy: cy, At: t1}}},
		{name: "an admin renames another's agent", history: acme, cmd: organization.RenameAgent{Actor: bob, AgentID: agCy, Name: "spider", At: t1},
			want: []domain.Event{organization.AgentRenamed{OrganizationID: org, AgentID: agCy, Name: "spider", RenamedBy: bob, At: t1}}},
		{name: "a member may not rename another's agent", history: acme, cmd: organization.RenameAgent{Actor: cy, AgentID: agBob, Name: "x", At: t1}, code: domain.CodeForbidden},
		{name: "move out of the guild", history: acme, cmd: organization.MoveAgent{Actor: cy, AgentID: agCy, At: t1},
			want: []domain.Event{organization.AgentMoved{OrganizationID: org, AgentID: agCy, MovedBy: cy, At: t1}}},
		{name: "an admin moves their agent into a guild they are not in", history: acme, cmd: organization.MoveAgent{Actor: bob, AgentID: agBob, GuildID: guild, At: t1},
			want: []domain.Event{organization.AgentMoved{OrganizationID: org, AgentID: agBob, GuildID: guild, MovedBy: bob, At: t1}}},
		{name: "an owner may not move a member's agent into a guild the member is not in", history: plus(acme, organization.GuildCreated{OrganizationID: org, GuildID: g2, Name: "Ops", CreatedBy: ada, At: t0}),
			cmd: organization.MoveAgent{Actor: ada, AgentID: agCy, GuildID: g2, At: t1}, code: domain.CodeForbidden},
		{name: "delete", history: acme, cmd: organization.DeleteAgent{Actor: cy, AgentID: agCy, At: t1},
			want: []domain.Event{organization.AgentDeleted{OrganizationID: org, AgentID: agCy, DeletedBy: cy, At: t1}}},
		{name: "delete a deleted agent", history: plus(acme, organization.AgentDeleted{OrganizationID: org, AgentID: agCy, DeletedBy: cy, At: t0}),
			cmd: organization.DeleteAgent{Actor: cy, AgentID: agCy, At: t1}, code: domain.CodeNotFound},
		{name: "the default agent stays", history: personal, cmd: organization.DeleteAgent{Actor: ada, AgentID: organization.DefaultAgentID(ada), At: t1}, code: domain.CodeConflict},
		{name: "an outsider's delete is not found", history: acme, cmd: organization.DeleteAgent{Actor: dee, AgentID: agCy, At: t1}, code: domain.CodeNotFound},
	})
}

func TestNoCommand(t *testing.T) {
	if _, err := organization.Decide(fold(acme), nil); domain.ErrorCode(err) != domain.CodeInvalid {
		t.Fatalf("nil command: %v", err)
	}
}

// The ids derived from a user id are stable (they are stored in the log) and the default agent's id
// is the one domain/identitydom resolves keys without an agent to.
func TestWellKnownIDs(t *testing.T) {
	u := uuid.MustParse("11111111-1111-4111-8111-111111111111")
	if organization.DefaultAgentID(u) != identitydom.DefaultAgentID(u) {
		t.Fatal("the default agent ids of organization and identity differ")
	}
	if organization.DefaultAgentID(u) == organization.PersonalOrganizationID(u) || organization.DefaultAgentID(u) == organization.DefaultAgentID(bob) {
		t.Fatal("derived ids collide")
	}
	// Pinned: changing the namespace or the names would orphan every agent id already in a log.
	if got, want := organization.DefaultAgentID(u).String(), "5d7b9837-7b38-53cb-950b-1264a166d0e1"; got != want {
		t.Errorf("DefaultAgentID = %s, want %s", got, want)
	}
	if got, want := organization.PersonalOrganizationID(u).String(), "7a04fb8d-3be1-5fc8-8058-7f00ae9117c1"; got != want {
		t.Errorf("PersonalOrganizationID = %s, want %s", got, want)
	}
}
