package organizationsrm

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/internal/dbtime"
)

// ErrNotFound is returned when no row matches.
var ErrNotFound = errors.New("organizations: not found")

// Reader answers scope questions from the read model. Its methods are safe for concurrent use.
type Reader struct{ DB *sql.DB }

// Chain is the scopes an agent acts in: its organisation, its guild (uuid.Nil when it is in none) and
// the agent itself. Connector logins and tool switches inherit platform → organisation → guild →
// agent along it.
type Chain struct {
	OrganizationID, GuildID, AgentID uuid.UUID
}

// Chain resolves an agent to its guild and organisation. An agent the read model does not have (never
// created, deleted, or not projected yet) is ErrNotFound.
func (r *Reader) Chain(ctx context.Context, agentID uuid.UUID) (Chain, error) {
	var org string
	var guild sql.NullString
	err := r.DB.QueryRowContext(ctx, `SELECT org_id, guild_id FROM agents WHERE agent_id = $1`, agentID.String()).Scan(&org, &guild)
	if errors.Is(err, sql.ErrNoRows) {
		return Chain{}, ErrNotFound
	}
	if err != nil {
		return Chain{}, fmt.Errorf("organizations: chain: %w", err)
	}
	c := Chain{AgentID: agentID}
	if c.OrganizationID, err = uuid.Parse(org); err != nil {
		return Chain{}, err
	}
	if guild.Valid {
		if c.GuildID, err = uuid.Parse(guild.String); err != nil {
			return Chain{}, err
		}
	}
	return c, nil
}

// ChainFor is Chain for a request of user acting as agent (a Principal's UserID and AgentID). It
// differs from Chain only for the user's default agent before the backfill has made their personal
// organisation (a server just upgraded): that agent's chain is known all the same, the personal
// organisation with no guild, so a request never fails for want of the backfill.
func (r *Reader) ChainFor(ctx context.Context, userID, agentID uuid.UUID) (Chain, error) {
	c, err := r.Chain(ctx, agentID)
	if errors.Is(err, ErrNotFound) && agentID == organization.DefaultAgentID(userID) {
		return Chain{OrganizationID: organization.PersonalOrganizationID(userID), AgentID: agentID}, nil
	}
	return c, err
}

// DefaultAgent returns the agent that a user's credentials made before agents existed act as: the
// default agent of their personal organisation. Its id is organization.DefaultAgentID(userID) whether
// or not the personal organisation has been created yet, so the answer never depends on the backfill
// having run; the query only confirms the row when it is there. The error is a database failure.
func (r *Reader) DefaultAgent(ctx context.Context, userID uuid.UUID) (uuid.UUID, error) {
	var id string
	err := r.DB.QueryRowContext(ctx, `SELECT agent_id FROM agents WHERE owner_id = $1 AND is_default = 1`, userID.String()).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return organization.DefaultAgentID(userID), nil
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("organizations: default agent: %w", err)
	}
	return uuid.Parse(id)
}

// Organization is a row of organizations.
type Organization struct {
	ID        uuid.UUID
	Name      string
	Personal  bool
	CreatedBy uuid.UUID
	CreatedAt time.Time
}

// Membership is an organisation seen by one member.
type Membership struct {
	Organization
	Role organization.Role
}

// Member is a row of org_members.
type Member struct {
	UserID  uuid.UUID
	Email   string
	Role    organization.Role
	AddedAt time.Time
}

// Invitation is a pending invitation: of Email, or (when the log names the address by its hash) of
// the address with EmailHash, sealed in SealedEmail (Email is then empty).
type Invitation struct {
	OrganizationID uuid.UUID
	Email          string
	EmailHash      string
	SealedEmail    domain.Sealed
	Role           organization.Role
	InvitedBy      uuid.UUID
	InvitedAt      time.Time
}

// Guild is a guild with its members' user ids.
type Guild struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	CreatedAt      time.Time
	Members        []uuid.UUID
}

// Agent is a row of agents.
type Agent struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	GuildID        uuid.UUID // uuid.Nil: in no guild
	OwnerID        uuid.UUID
	Name           string
	Default        bool
	CreatedAt      time.Time
}

const orgCols = `o.org_id, o.name, o.personal, o.created_by, o.created_at`

func scanOrg(sc interface{ Scan(...any) error }, extra ...any) (Organization, error) {
	var o Organization
	var id, by, at string
	var personal int
	if err := sc.Scan(append([]any{&id, &o.Name, &personal, &by, &at}, extra...)...); err != nil {
		return Organization{}, err
	}
	o.Personal = personal == 1
	var err error
	if o.ID, err = uuid.Parse(id); err != nil {
		return Organization{}, err
	}
	if o.CreatedBy, err = uuid.Parse(by); err != nil {
		return Organization{}, err
	}
	o.CreatedAt, err = dbtime.Parse(at)
	return o, err
}

// Organization returns one organisation.
func (r *Reader) Organization(ctx context.Context, orgID uuid.UUID) (Organization, error) {
	o, err := scanOrg(r.DB.QueryRowContext(ctx, `SELECT `+orgCols+` FROM organizations o WHERE o.org_id = $1`, orgID.String()))
	if errors.Is(err, sql.ErrNoRows) {
		return Organization{}, ErrNotFound
	}
	if err != nil {
		return Organization{}, fmt.Errorf("organizations: organization: %w", err)
	}
	return o, nil
}

// Membership returns an organisation as one user sees it, or ErrNotFound when the user is not a
// member (or the organisation does not exist: the two are not told apart).
func (r *Reader) Membership(ctx context.Context, orgID, userID uuid.UUID) (Membership, error) {
	var role string
	o, err := scanOrg(r.DB.QueryRowContext(ctx, `SELECT `+orgCols+`, m.role FROM organizations o
		JOIN org_members m ON m.org_id = o.org_id WHERE o.org_id = $1 AND m.user_id = $2`, orgID.String(), userID.String()), &role)
	if errors.Is(err, sql.ErrNoRows) {
		return Membership{}, ErrNotFound
	}
	if err != nil {
		return Membership{}, fmt.Errorf("organizations: membership: %w", err)
	}
	return Membership{Organization: o, Role: organization.Role(role)}, nil
}

// Memberships lists the organisations a user is a member of, the personal one first, then by name.
func (r *Reader) Memberships(ctx context.Context, userID uuid.UUID) ([]Membership, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT `+orgCols+`, m.role FROM organizations o
		JOIN org_members m ON m.org_id = o.org_id WHERE m.user_id = $1 ORDER BY o.personal DESC, o.name, o.org_id`, userID.String())
	if err != nil {
		return nil, fmt.Errorf("organizations: memberships: %w", err)
	}
	defer rows.Close()
	var out []Membership
	for rows.Next() {
		var role string
		o, err := scanOrg(rows, &role)
		if err != nil {
			return nil, err
		}
		out = append(out, Membership{Organization: o, Role: organization.Role(role)})
	}
	return out, rows.Err()
}

// Members lists an organisation's members by email. A member whose address the log holds sealed has
// none in org_members: it is read from the identity read model (the pseudonym once erased).
func (r *Reader) Members(ctx context.Context, orgID uuid.UUID) ([]Member, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT m.user_id, COALESCE(NULLIF(m.email, ''), u.email, '') AS member_email, m.role, m.added_at
		FROM org_members m LEFT JOIN users u ON u.user_id = m.user_id
		WHERE m.org_id = $1 ORDER BY member_email, m.user_id`, orgID.String())
	if err != nil {
		return nil, fmt.Errorf("organizations: members: %w", err)
	}
	defer rows.Close()
	var out []Member
	for rows.Next() {
		var m Member
		var uid, role, at string
		if err := rows.Scan(&uid, &m.Email, &role, &at); err != nil {
			return nil, err
		}
		if m.UserID, err = uuid.Parse(uid); err != nil {
			return nil, err
		}
		m.Role = organization.Role(role)
		if m.AddedAt, err = dbtime.Parse(at); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

func (r *Reader) invitations(ctx context.Context, where string, args ...any) ([]Invitation, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT org_id, email, role, invited_by, invited_at, email_hash, sealed_email FROM org_invitations WHERE `+where+` ORDER BY email, org_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("organizations: invitations: %w", err)
	}
	defer rows.Close()
	var out []Invitation
	for rows.Next() {
		var inv Invitation
		var org, role, by, at, sealed string
		if err := rows.Scan(&org, &inv.Email, &role, &by, &at, &inv.EmailHash, &sealed); err != nil {
			return nil, err
		}
		if inv.EmailHash != "" {
			inv.Email = ""
		}
		if sealed != "" {
			if err := json.Unmarshal([]byte(sealed), &inv.SealedEmail); err != nil {
				return nil, fmt.Errorf("organizations: invitation's sealed address: %w", err)
			}
		}
		if inv.OrganizationID, err = uuid.Parse(org); err != nil {
			return nil, err
		}
		if inv.InvitedBy, err = uuid.Parse(by); err != nil {
			return nil, err
		}
		inv.Role = organization.Role(role)
		if inv.InvitedAt, err = dbtime.Parse(at); err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}

// Invitations lists an organisation's pending invitations.
func (r *Reader) Invitations(ctx context.Context, orgID uuid.UUID) ([]Invitation, error) {
	return r.invitations(ctx, `org_id = $1`, orgID.String())
}

// InvitationsFor lists the pending invitations of a normalised address, in every organisation: those
// recorded in clear, and those recorded by hash, its InviteeHash (empty: none).
func (r *Reader) InvitationsFor(ctx context.Context, email, hash string) ([]Invitation, error) {
	if hash == "" {
		return r.invitations(ctx, `email = $1`, email)
	}
	return r.invitations(ctx, `email IN ($1, $2)`, email, hash)
}

// Guilds lists an organisation's guilds by name, each with its members.
func (r *Reader) Guilds(ctx context.Context, orgID uuid.UUID) ([]Guild, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT guild_id, name, created_at FROM guilds WHERE org_id = $1 ORDER BY name, guild_id`, orgID.String())
	if err != nil {
		return nil, fmt.Errorf("organizations: guilds: %w", err)
	}
	var out []Guild
	for rows.Next() {
		g := Guild{OrganizationID: orgID}
		var id, at string
		if err := rows.Scan(&id, &g.Name, &at); err != nil {
			rows.Close()
			return nil, err
		}
		if g.ID, err = uuid.Parse(id); err != nil {
			rows.Close()
			return nil, err
		}
		if g.CreatedAt, err = dbtime.Parse(at); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Members, err = r.guildMembers(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Guild returns one guild with its members.
func (r *Reader) Guild(ctx context.Context, guildID uuid.UUID) (Guild, error) {
	g := Guild{ID: guildID}
	var org, at string
	err := r.DB.QueryRowContext(ctx, `SELECT org_id, name, created_at FROM guilds WHERE guild_id = $1`, guildID.String()).Scan(&org, &g.Name, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return Guild{}, ErrNotFound
	}
	if err != nil {
		return Guild{}, fmt.Errorf("organizations: guild: %w", err)
	}
	if g.OrganizationID, err = uuid.Parse(org); err != nil {
		return Guild{}, err
	}
	if g.CreatedAt, err = dbtime.Parse(at); err != nil {
		return Guild{}, err
	}
	g.Members, err = r.guildMembers(ctx, guildID)
	return g, err
}

func (r *Reader) guildMembers(ctx context.Context, guildID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT user_id FROM guild_members WHERE guild_id = $1 ORDER BY user_id`, guildID.String())
	if err != nil {
		return nil, fmt.Errorf("organizations: guild members: %w", err)
	}
	defer rows.Close()
	var out []uuid.UUID
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

const agentCols = `agent_id, org_id, guild_id, owner_id, name, is_default, created_at`

func scanAgent(sc interface{ Scan(...any) error }) (Agent, error) {
	var a Agent
	var id, org, owner, at string
	var guild sql.NullString
	var def int
	if err := sc.Scan(&id, &org, &guild, &owner, &a.Name, &def, &at); err != nil {
		return Agent{}, err
	}
	a.Default = def == 1
	var err error
	if a.ID, err = uuid.Parse(id); err != nil {
		return Agent{}, err
	}
	if a.OrganizationID, err = uuid.Parse(org); err != nil {
		return Agent{}, err
	}
	if guild.Valid {
		if a.GuildID, err = uuid.Parse(guild.String); err != nil {
			return Agent{}, err
		}
	}
	if a.OwnerID, err = uuid.Parse(owner); err != nil {
		return Agent{}, err
	}
	a.CreatedAt, err = dbtime.Parse(at)
	return a, err
}

// Agent returns one agent.
func (r *Reader) Agent(ctx context.Context, agentID uuid.UUID) (Agent, error) {
	a, err := scanAgent(r.DB.QueryRowContext(ctx, `SELECT `+agentCols+` FROM agents WHERE agent_id = $1`, agentID.String()))
	if errors.Is(err, sql.ErrNoRows) {
		return Agent{}, ErrNotFound
	}
	if err != nil {
		return Agent{}, fmt.Errorf("organizations: agent: %w", err)
	}
	return a, nil
}

func (r *Reader) agents(ctx context.Context, where string, args ...any) ([]Agent, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT `+agentCols+` FROM agents WHERE `+where+` ORDER BY is_default DESC, name, agent_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("organizations: agents: %w", err)
	}
	defer rows.Close()
	var out []Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// Agents lists an organisation's agents, the default one first, then by name.
func (r *Reader) Agents(ctx context.Context, orgID uuid.UUID) ([]Agent, error) {
	return r.agents(ctx, `org_id = $1`, orgID.String())
}

// GuildAgents lists the agents in a guild.
func (r *Reader) GuildAgents(ctx context.Context, guildID uuid.UUID) ([]Agent, error) {
	return r.agents(ctx, `guild_id = $1`, guildID.String())
}

// AgentsOf lists a user's agents in every organisation.
func (r *Reader) AgentsOf(ctx context.Context, userID uuid.UUID) ([]Agent, error) {
	return r.agents(ctx, `owner_id = $1`, userID.String())
}

// UserRef names a user the backfill must give a personal organisation.
type UserRef struct {
	ID          uuid.UUID
	Email       string
	DisplayName string
}

// UsersWithoutPersonalOrganization lists, from the identity read model, the users who have no personal
// organisation yet (they signed up before organisations existed), at most limit of them. Erased users
// are not listed.
func (r *Reader) UsersWithoutPersonalOrganization(ctx context.Context, limit int) ([]UserRef, error) {
	rows, err := r.DB.QueryContext(ctx, `SELECT u.user_id, u.email, u.display_name FROM users u
		WHERE u.erased_at IS NULL AND NOT EXISTS (SELECT 1 FROM organizations o WHERE o.created_by = u.user_id AND o.personal = 1)
		ORDER BY u.user_id LIMIT $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("organizations: users without a personal organisation: %w", err)
	}
	defer rows.Close()
	var out []UserRef
	for rows.Next() {
		var u UserRef
		var id string
		if err := rows.Scan(&id, &u.Email, &u.DisplayName); err != nil {
			return nil, err
		}
		if u.ID, err = uuid.Parse(id); err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, rows.Err()
}
