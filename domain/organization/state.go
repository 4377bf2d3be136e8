package organization

import (
	"maps"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Role is a member's role in an organisation.
type Role string

const (
	RoleOwner  Role = "owner"  // everything an admin does, and grants or takes away the owner role
	RoleAdmin  Role = "admin"  // invites, adds and removes members, changes roles below owner, manages guilds
	RoleMember Role = "member" // sees the organisation, creates and manages their own agents
	// RoleApprover is a member who also decides the approvals of the organisation's agents' calls
	// (a switch set to Ask), and manages nothing.
	RoleApprover Role = "approver"
)

// Valid reports whether r is one of the roles.
func (r Role) Valid() bool {
	return r == RoleOwner || r == RoleAdmin || r == RoleMember || r == RoleApprover
}

// Approves reports whether the role decides the approvals of the organisation's agents.
func (r Role) Approves() bool { return r == RoleOwner || r == RoleAdmin || r == RoleApprover }

// manages reports whether the role may manage members and guilds.
func (r Role) manages() bool { return r == RoleOwner || r == RoleAdmin }

// Member is one membership.
type Member struct {
	UserID uuid.UUID
	// Email is empty when the log holds the address sealed (MemberAdded.SealedEmail).
	Email string
	// EmailHash is the hash of the address of a member who joined through an invitation recorded by
	// hash (MemberAdded.InvitationHash).
	EmailHash string
	Role      Role
	AddedAt   time.Time
}

// label names the member in a message: the address when the state has it, the user id otherwise.
func (m Member) label() string {
	if m.Email != "" {
		return m.Email
	}
	return "user " + m.UserID.String()
}

// Invitation is a pending invitation of an address: of Email (older events), or of the address with
// EmailHash, sealed in SealedEmail.
type Invitation struct {
	Email       string
	EmailHash   string
	SealedEmail domain.Sealed
	Role        Role
	InvitedBy   uuid.UUID
	At          time.Time
}

// invitationKey is the key of an invitation in State.Invitations: the hash when it has one.
func invitationKey(email, hash string) string {
	if hash != "" {
		return hash
	}
	return email
}

// Invitation finds the pending invitation of a normalised address, recorded in clear or by its hash
// (h may be empty).
func (s State) Invitation(email, h string) (Invitation, bool) {
	if inv, ok := s.Invitations[email]; ok && email != "" {
		return inv, true
	}
	if h == "" {
		return Invitation{}, false
	}
	inv, ok := s.Invitations[h]
	return inv, ok
}

// Guild is a team. Deleted guilds are kept so that their ids are never reused.
type Guild struct {
	ID      uuid.UUID
	Name    string
	Members map[uuid.UUID]bool
	Deleted bool
}

// Agent is a principal. Deleted agents are kept so that their ids are never reused.
type Agent struct {
	ID      uuid.UUID
	OwnerID uuid.UUID
	Name    string
	GuildID uuid.UUID // uuid.Nil: in no guild
	Default bool
	Deleted bool
}

// State is one organisation folded from its stream. The zero State (Initial) does not exist. Evolve
// copies a map before it changes it, so a state handed out earlier never sees later events.
type State struct {
	ID          uuid.UUID
	Name        string
	Personal    bool
	CreatedBy   uuid.UUID
	CreatedAt   time.Time
	Members     map[uuid.UUID]Member
	Invitations map[string]Invitation // by normalised email, or by email hash (invitationKey)
	Guilds      map[uuid.UUID]Guild
	Agents      map[uuid.UUID]Agent
}

// Initial is the state of an organisation stream with no events.
func Initial() State { return State{} }

// Exists reports whether the organisation has been created.
func (s State) Exists() bool { return s.ID != uuid.Nil }

// Role returns a user's role, and whether they are a member.
func (s State) Role(user uuid.UUID) (Role, bool) {
	m, ok := s.Members[user]
	return m.Role, ok
}

// Guild returns a guild that exists (not deleted).
func (s State) Guild(id uuid.UUID) (Guild, bool) {
	g, ok := s.Guilds[id]
	return g, ok && !g.Deleted
}

// Agent returns an agent that exists (not deleted).
func (s State) Agent(id uuid.UUID) (Agent, bool) {
	a, ok := s.Agents[id]
	return a, ok && !a.Deleted
}

// owners counts the members with the owner role.
func (s State) owners() int {
	n := 0
	for _, m := range s.Members {
		if m.Role == RoleOwner {
			n++
		}
	}
	return n
}

// Evolve folds one event into the state. It never fails: events are facts.
func Evolve(s State, ev domain.Event) State {
	switch e := ev.(type) {
	case OrganizationCreated:
		s.ID, s.Name, s.Personal, s.CreatedBy, s.CreatedAt = e.OrganizationID, e.Name, e.Personal, e.CreatedBy, e.CreatedAt
	case OrganizationRenamed:
		s.Name = e.Name
	case MemberInvited:
		s.Invitations = cloneMap(s.Invitations)
		s.Invitations[invitationKey(e.Email, e.EmailHash)] = Invitation{Email: e.Email, EmailHash: e.EmailHash, SealedEmail: e.SealedEmail, Role: e.Role, InvitedBy: e.InvitedBy, At: e.At}
	case InvitationRevoked:
		s.Invitations = cloneMap(s.Invitations)
		delete(s.Invitations, invitationKey(e.Email, e.EmailHash))
	case InvitationDeclined:
		s.Invitations = cloneMap(s.Invitations)
		delete(s.Invitations, invitationKey(e.Email, e.EmailHash))
	case MemberAdded:
		s.Members = cloneMap(s.Members)
		s.Members[e.UserID] = Member{UserID: e.UserID, Email: e.Email, EmailHash: e.InvitationHash, Role: e.Role, AddedAt: e.At}
		for _, k := range []string{e.Email, e.InvitationHash} {
			if _, ok := s.Invitations[k]; ok && k != "" {
				s.Invitations = cloneMap(s.Invitations)
				delete(s.Invitations, k)
			}
		}
	case MemberRoleChanged:
		if m, ok := s.Members[e.UserID]; ok {
			s.Members = cloneMap(s.Members)
			m.Role = e.Role
			s.Members[e.UserID] = m
		}
	case MemberRemoved:
		s.Members = cloneMap(s.Members)
		delete(s.Members, e.UserID)
		s.Guilds = cloneMap(s.Guilds)
		for id, g := range s.Guilds {
			if g.Members[e.UserID] {
				g.Members = cloneMap(g.Members)
				delete(g.Members, e.UserID)
				s.Guilds[id] = g
			}
		}
	case GuildCreated:
		s.Guilds = cloneMap(s.Guilds)
		s.Guilds[e.GuildID] = Guild{ID: e.GuildID, Name: e.Name, Members: map[uuid.UUID]bool{}}
	case GuildRenamed:
		s = s.withGuild(e.GuildID, func(g *Guild) { g.Name = e.Name })
	case GuildDeleted:
		s = s.withGuild(e.GuildID, func(g *Guild) { g.Deleted, g.Members = true, map[uuid.UUID]bool{} })
	case GuildMemberAdded:
		s = s.withGuild(e.GuildID, func(g *Guild) { g.Members = cloneMap(g.Members); g.Members[e.UserID] = true })
	case GuildMemberRemoved:
		s = s.withGuild(e.GuildID, func(g *Guild) { g.Members = cloneMap(g.Members); delete(g.Members, e.UserID) })
	case AgentCreated:
		s.Agents = cloneMap(s.Agents)
		s.Agents[e.AgentID] = Agent{ID: e.AgentID, OwnerID: e.OwnerID, Name: e.Name, GuildID: e.GuildID, Default: e.Default}
	case AgentRenamed:
		s = s.withAgent(e.AgentID, func(a *Agent) { a.Name = e.Name })
	case AgentMoved:
		s = s.withAgent(e.AgentID, func(a *Agent) { a.GuildID = e.GuildID })
	case AgentDeleted:
		s = s.withAgent(e.AgentID, func(a *Agent) { a.Deleted = true })
	}
	return s
}

func (s State) withGuild(id uuid.UUID, f func(*Guild)) State {
	g, ok := s.Guilds[id]
	if !ok {
		return s
	}
	s.Guilds = cloneMap(s.Guilds)
	f(&g)
	s.Guilds[id] = g
	return s
}

func (s State) withAgent(id uuid.UUID, f func(*Agent)) State {
	a, ok := s.Agents[id]
	if !ok {
		return s
	}
	s.Agents = cloneMap(s.Agents)
	f(&a)
	s.Agents[id] = a
	return s
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return maps.Clone(m)
}
