package organization

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names. They are written into the log and never change once an event has been stored.
const (
	TypeOrganizationCreated = "organization.created"
	TypeOrganizationRenamed = "organization.renamed"
	TypeMemberInvited       = "organization.member_invited"
	TypeInvitationRevoked   = "organization.invitation_revoked"
	TypeInvitationDeclined  = "organization.invitation_declined"
	TypeMemberAdded         = "organization.member_added"
	TypeMemberRoleChanged   = "organization.member_role_changed"
	TypeMemberRemoved       = "organization.member_removed"
	TypeGuildCreated        = "organization.guild_created"
	TypeGuildRenamed        = "organization.guild_renamed"
	TypeGuildDeleted        = "organization.guild_deleted"
	TypeGuildMemberAdded    = "organization.guild_member_added"
	TypeGuildMemberRemoved  = "organization.guild_member_removed"
	TypeAgentCreated        = "organization.agent_created"
	TypeAgentRenamed        = "organization.agent_renamed"
	TypeAgentMoved          = "organization.agent_moved"
	TypeAgentDeleted        = "organization.agent_deleted"
)

// MemberEmailPurpose binds a member's sealed address (MemberAdded.SealedEmail) to its use.
const MemberEmailPurpose = "organization:member_email"

// InviteeEmailPurpose binds an invitee's sealed address (MemberInvited.SealedEmail) to its use.
const InviteeEmailPurpose = "organization:invitee_email"

// OrganizationCreated is the first event of an organisation stream. Personal marks the one
// organisation every user has (PersonalOrganizationID); CreatedBy becomes its first owner through the
// MemberAdded that follows in the same append.
type OrganizationCreated struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	Name           string    `json:"name"`
	Personal       bool      `json:"personal,omitempty"`
	CreatedBy      uuid.UUID `json:"created_by"`
	CreatedAt      time.Time `json:"created_at"`
}

// OrganizationRenamed changes the display name.
type OrganizationRenamed struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	Name           string    `json:"name"`
	RenamedBy      uuid.UUID `json:"renamed_by"`
	At             time.Time `json:"at"`
}

// MemberInvited records a pending invitation of an address, whether or not a Workbench user has it.
// The invitee becomes a member (MemberAdded with Invited) when they accept it, signed in with that
// address, or ends it by declining (InvitationDeclined). A second invitation of the same address
// replaces the role of the first. (Before invitations were accepted explicitly, the invitee's sign-in
// accepted them; a pending one in an old log now waits for the invitee's answer.)
//
// Newer events name the address only by EmailHash (InviteeHash of it) and carry it in SealedEmail,
// sealed under the subject InviteeSubject(EmailHash) (purpose InviteeEmailPurpose), which erasing the
// user of that address shreds; Email is then empty. Older events carry Email in clear.
type MemberInvited struct {
	OrganizationID uuid.UUID     `json:"organization_id"`
	Email          string        `json:"email,omitempty"`
	EmailHash      string        `json:"email_hash,omitempty"`
	SealedEmail    domain.Sealed `json:"sealed_email,omitzero"`
	Role           Role          `json:"role"`
	InvitedBy      uuid.UUID     `json:"invited_by"`
	At             time.Time     `json:"at"`
}

// InvitationRevoked withdraws a pending invitation: the one of Email (older invitations) or of
// EmailHash.
type InvitationRevoked struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	Email          string    `json:"email,omitempty"`
	EmailHash      string    `json:"email_hash,omitempty"`
	RevokedBy      uuid.UUID `json:"revoked_by"`
	At             time.Time `json:"at"`
}

// InvitationDeclined records that the invitee, signed in with the invited address, said no. It names
// the invitation as InvitationRevoked does.
type InvitationDeclined struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	Email          string    `json:"email,omitempty"`
	EmailHash      string    `json:"email_hash,omitempty"`
	UserID         uuid.UUID `json:"user_id"`
	At             time.Time `json:"at"`
}

// MemberAdded makes a user a member with a role: the creator of an organisation, a user an owner or
// admin added (in logs written before invitations had to be accepted), or an invitee who accepted
// (AddedBy is then the inviter and Invited is true; in older logs, an invitee who signed in).
//
// Newer events carry the member's address only in SealedEmail, sealed under the member's own data key
// (purpose MemberEmailPurpose), so erasing the member leaves it unreadable; Email is then empty and
// readers take the address from the identity read model. Older events, and those closing an invitation
// recorded with the address in clear, carry Email in clear. InvitationHash names the invitation (by
// MemberInvited.EmailHash) that the event closes, when it was recorded by hash.
type MemberAdded struct {
	OrganizationID uuid.UUID     `json:"organization_id"`
	UserID         uuid.UUID     `json:"user_id"`
	Email          string        `json:"email,omitempty"`
	SealedEmail    domain.Sealed `json:"sealed_email,omitzero"`
	InvitationHash string        `json:"invitation_hash,omitempty"`
	Role           Role          `json:"role"`
	AddedBy        uuid.UUID     `json:"added_by"`
	Invited        bool          `json:"invited,omitempty"`
	At             time.Time     `json:"at"`
}

// MemberRoleChanged changes a member's role.
type MemberRoleChanged struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	UserID         uuid.UUID `json:"user_id"`
	Role           Role      `json:"role"`
	ChangedBy      uuid.UUID `json:"changed_by"`
	At             time.Time `json:"at"`
}

// MemberRemoved ends a membership (RemovedBy equal to UserID when the member left). The member's
// agents in the organisation are deleted by AgentDeleted events in the same append, and their guild
// memberships end with it.
type MemberRemoved struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	UserID         uuid.UUID `json:"user_id"`
	RemovedBy      uuid.UUID `json:"removed_by"`
	At             time.Time `json:"at"`
}

// GuildCreated adds a team to the organisation.
type GuildCreated struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	GuildID        uuid.UUID `json:"guild_id"`
	Name           string    `json:"name"`
	CreatedBy      uuid.UUID `json:"created_by"`
	At             time.Time `json:"at"`
}

// GuildRenamed changes a guild's name.
type GuildRenamed struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	GuildID        uuid.UUID `json:"guild_id"`
	Name           string    `json:"name"`
	RenamedBy      uuid.UUID `json:"renamed_by"`
	At             time.Time `json:"at"`
}

// GuildDeleted removes a guild. Its agents stay, in no guild (AgentMoved events in the same append);
// its memberships end.
type GuildDeleted struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	GuildID        uuid.UUID `json:"guild_id"`
	DeletedBy      uuid.UUID `json:"deleted_by"`
	At             time.Time `json:"at"`
}

// GuildMemberAdded makes an organisation member a member of a guild.
type GuildMemberAdded struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	GuildID        uuid.UUID `json:"guild_id"`
	UserID         uuid.UUID `json:"user_id"`
	AddedBy        uuid.UUID `json:"added_by"`
	At             time.Time `json:"at"`
}

// GuildMemberRemoved ends a guild membership. The member's agents in the guild move to no guild
// (AgentMoved events in the same append).
type GuildMemberRemoved struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	GuildID        uuid.UUID `json:"guild_id"`
	UserID         uuid.UUID `json:"user_id"`
	RemovedBy      uuid.UUID `json:"removed_by"`
	At             time.Time `json:"at"`
}

// AgentCreated adds an agent owned by OwnerID, in GuildID (uuid.Nil: in no guild). Default marks the
// agent of a personal organisation that legacy credentials resolve to (DefaultAgentID).
type AgentCreated struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	AgentID        uuid.UUID `json:"agent_id"`
	OwnerID        uuid.UUID `json:"owner_id"`
	Name           string    `json:"name"`
	GuildID        uuid.UUID `json:"guild_id,omitzero"`
	Default        bool      `json:"default,omitempty"`
	CreatedBy      uuid.UUID `json:"created_by"`
	At             time.Time `json:"at"`
}

// AgentRenamed changes an agent's name.
type AgentRenamed struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	AgentID        uuid.UUID `json:"agent_id"`
	Name           string    `json:"name"`
	RenamedBy      uuid.UUID `json:"renamed_by"`
	At             time.Time `json:"at"`
}

// AgentMoved puts an agent in another guild, or in none (GuildID uuid.Nil).
type AgentMoved struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	AgentID        uuid.UUID `json:"agent_id"`
	GuildID        uuid.UUID `json:"guild_id,omitzero"`
	MovedBy        uuid.UUID `json:"moved_by"`
	At             time.Time `json:"at"`
}

// AgentDeleted retires an agent: its credentials stop resolving to a scope.
type AgentDeleted struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	AgentID        uuid.UUID `json:"agent_id"`
	DeletedBy      uuid.UUID `json:"deleted_by"`
	At             time.Time `json:"at"`
}

func (OrganizationCreated) EventType() string { return TypeOrganizationCreated }
func (OrganizationRenamed) EventType() string { return TypeOrganizationRenamed }
func (MemberInvited) EventType() string       { return TypeMemberInvited }
func (InvitationRevoked) EventType() string   { return TypeInvitationRevoked }
func (InvitationDeclined) EventType() string  { return TypeInvitationDeclined }
func (MemberAdded) EventType() string         { return TypeMemberAdded }
func (MemberRoleChanged) EventType() string   { return TypeMemberRoleChanged }
func (MemberRemoved) EventType() string       { return TypeMemberRemoved }
func (GuildCreated) EventType() string        { return TypeGuildCreated }
func (GuildRenamed) EventType() string        { return TypeGuildRenamed }
func (GuildDeleted) EventType() string        { return TypeGuildDeleted }
func (GuildMemberAdded) EventType() string    { return TypeGuildMemberAdded }
func (GuildMemberRemoved) EventType() string  { return TypeGuildMemberRemoved }
func (AgentCreated) EventType() string        { return TypeAgentCreated }
func (AgentRenamed) EventType() string        { return TypeAgentRenamed }
func (AgentMoved) EventType() string          { return TypeAgentMoved }
func (AgentDeleted) EventType() string        { return TypeAgentDeleted }

// Events returns a zero value of every event type, for eventstore.NewJSONCodec(organization.Events()...).
func Events() []domain.Event {
	return []domain.Event{
		OrganizationCreated{}, OrganizationRenamed{},
		MemberInvited{}, InvitationRevoked{}, InvitationDeclined{}, MemberAdded{}, MemberRoleChanged{}, MemberRemoved{},
		GuildCreated{}, GuildRenamed{}, GuildDeleted{}, GuildMemberAdded{}, GuildMemberRemoved{},
		AgentCreated{}, AgentRenamed{}, AgentMoved{}, AgentDeleted{},
	}
}
