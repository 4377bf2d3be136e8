package organizations

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
	"github.com/workbench/workbench/domain/organization"
	"github.com/workbench/workbench/eventstore"
	"github.com/workbench/workbench/internal/vault"
	"github.com/workbench/workbench/projections/identityrm"
	"github.com/workbench/workbench/projections/organizationsrm"
)

// Organizations is the organisation aggregate (organization.StreamName).
var Organizations = eventstore.Aggregate[organization.State, organization.Command, domain.Event]{
	Initial: organization.Initial, Evolve: organization.Evolve, Decide: organization.Decide,
	Codec: eventstore.NewJSONCodec(organization.Events()...),
}

// PersonalName is the name a personal organisation starts with.
const PersonalName = "Personal"

// Waiter is the part of projections.Runner the service needs to read its own writes.
type Waiter interface {
	WaitForProjection(ctx context.Context, name string, pos eventstore.Position) error
}

// KeyRevoker is the part of app/accounts that retires a deleted agent's API key.
type KeyRevoker interface {
	RevokeAgentKey(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) (eventstore.Position, error)
}

// GrantRevoker is the part of app/oauthclients that retires a deleted agent's OAuth grants.
type GrantRevoker interface {
	RevokeAgentGrants(ctx context.Context, user, agent uuid.UUID, md eventstore.Metadata) error
}

// LoginRemover is the part of app/connectors that removes a deleted agent's connector logins and
// shreds their credentials.
type LoginRemover interface {
	RemoveAgentLogins(ctx context.Context, agent uuid.UUID, md eventstore.Metadata) error
}

// Options configure a Service. Store and Reader are required.
type Options struct {
	Store  eventstore.Store
	Reader *organizationsrm.Reader
	// Projections, when set, is waited on after every write for the organizations read model.
	Projections Waiter
	// Keys, when set, revokes the API key of an agent that is deleted.
	Keys KeyRevoker
	// Grants, when set, revokes the OAuth grants of an agent that is deleted (see also WithGrants).
	Grants GrantRevoker
	// Logins, when set, removes the connector logins of an agent that is deleted (see also WithLogins).
	Logins LoginRemover
	// Vault seals a member's address in organization.member_added under the member's own data key, so
	// that erasing the member leaves it unreadable in the log. Without one (only tests build that) the
	// address is recorded in clear.
	Vault Sealer
	// InviteeKey, with Vault, keys the hash (organization.InviteeHash) that names an invited address in
	// the log; the address itself is sealed under organization.InviteeSubject of the hash. The server
	// derives it from the master key. Without one the invitations record the address in clear.
	InviteeKey []byte
	Now        func() time.Time
}

// InviteeKeyLabel is the label the server derives Options.InviteeKey (and compliance.Eraser.InviteeKey)
// from. It never changes: hashes keyed by it are stored in the log.
const InviteeKeyLabel = "invitee-email"

// Sealer is the part of the vault the service needs.
type Sealer interface {
	Seal(ctx context.Context, subject, purpose string, plaintext []byte) (domain.Sealed, error)
	Open(ctx context.Context, sealed domain.Sealed, purpose string) ([]byte, error)
}

// inviteeHash is the hash that names a normalised address in invitations, or "" when the service
// records invitations in clear.
func (s *Service) inviteeHash(norm string) string {
	if s.opts.Vault == nil || len(s.opts.InviteeKey) == 0 {
		return ""
	}
	return organization.InviteeHash(s.opts.InviteeKey, norm)
}

// invitationID is the id of a pending invitation of the read model.
func invitationID(inv organizationsrm.Invitation) uuid.UUID {
	if inv.EmailHash != "" {
		return organization.InvitationIDOfHash(inv.OrganizationID, inv.EmailHash)
	}
	return organization.InvitationID(inv.OrganizationID, inv.Email)
}

// sealEmail is the member's address sealed for them, or nothing without a vault.
func (s *Service) sealEmail(ctx context.Context, user uuid.UUID, email string) (domain.Sealed, error) {
	if s.opts.Vault == nil {
		return domain.Sealed{}, nil
	}
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return domain.Sealed{}, err
	}
	sealed, err := s.opts.Vault.Seal(ctx, user.String(), organization.MemberEmailPurpose, []byte(norm))
	if err != nil {
		return domain.Sealed{}, fmt.Errorf("seal the address of %s: %w", user, err)
	}
	return sealed, nil
}

// Service runs the organisation use cases.
type Service struct {
	opts Options
}

// New checks opts and returns the service.
func New(opts Options) (*Service, error) {
	if opts.Store == nil || opts.Reader == nil {
		return nil, errors.New("organizations: Store and Reader are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Service{opts: opts}, nil
}

func (s *Service) now() time.Time { return s.opts.Now().UTC() }

// WithGrants sets Options.Grants on a service built before the OAuth clients service existed. Call it
// before the service is used concurrently.
func (s *Service) WithGrants(g GrantRevoker) { s.opts.Grants = g }

// WithLogins sets Options.Logins on a service built before the connectors service existed. Call it
// before the service is used concurrently.
func (s *Service) WithLogins(l LoginRemover) { s.opts.Logins = l }

// Reader returns the read model the service was built with.
func (s *Service) Reader() *organizationsrm.Reader { return s.opts.Reader }

// exec runs one command on an organisation's stream and waits for the read model.
func (s *Service) exec(ctx context.Context, org uuid.UUID, cmd organization.Command, md eventstore.Metadata) (eventstore.Result[organization.State, domain.Event], error) {
	if org == uuid.Nil {
		return eventstore.Result[organization.State, domain.Event]{}, domain.Errorf(domain.CodeNotFound, "no such organisation")
	}
	res, err := eventstore.Execute(ctx, s.opts.Store, organization.StreamName(org), Organizations, cmd, md)
	if err != nil {
		return res, err
	}
	if err := s.wait(ctx, res.Position); err != nil {
		return res, err
	}
	return res, nil
}

func (s *Service) wait(ctx context.Context, pos eventstore.Position) error {
	if s.opts.Projections == nil || pos.IsZero() {
		return nil
	}
	if err := s.opts.Projections.WaitForProjection(ctx, organizationsrm.Name, pos); err != nil {
		return fmt.Errorf("organizations: recorded, but the read model has not applied it yet: %w", err)
	}
	return nil
}

// State reads one organisation from the log (not the read model).
func (s *Service) State(ctx context.Context, org uuid.UUID) (organization.State, error) {
	st, _, err := eventstore.LoadState(ctx, s.opts.Store, organization.StreamName(org), Organizations)
	return st, err
}

// EnsurePersonal creates a user's personal organisation, with the user as owner and their default
// agent, unless it exists. It returns the organisation's id.
func (s *Service) EnsurePersonal(ctx context.Context, user uuid.UUID, email string, md eventstore.Metadata) (uuid.UUID, error) {
	org := organization.PersonalOrganizationID(user)
	if st, err := s.State(ctx, org); err != nil {
		return uuid.Nil, err
	} else if st.Exists() && st.CreatedBy == user && st.Personal {
		return org, nil // nothing to seal or record
	}
	sealed, err := s.sealEmail(ctx, user, email)
	if err != nil {
		return uuid.Nil, fmt.Errorf("personal organisation of %s: %w", user, err)
	}
	_, err = s.exec(ctx, org, organization.CreateOrganization{
		OrganizationID: org, Name: PersonalName, Personal: true, Creator: user, CreatorEmail: email, CreatorSealedEmail: sealed, At: s.now(),
	}, md)
	if err != nil {
		return uuid.Nil, fmt.Errorf("personal organisation of %s: %w", user, err)
	}
	return org, nil
}

// SignedIn is what sign-in calls for the user it signed in: the personal organisation is made when
// missing. Pending invitations of the address wait for the user's answer (PendingInvitations,
// AcceptInvitation, DeclineInvitation): signing in joins nothing.
func (s *Service) SignedIn(ctx context.Context, user uuid.UUID, email string, md eventstore.Metadata) error {
	_, err := s.EnsurePersonal(ctx, user, email, md)
	return err
}

// PendingInvitation is an invitation of the caller's address, with the organisation's name.
type PendingInvitation struct {
	ID               uuid.UUID
	OrganizationID   uuid.UUID
	OrganizationName string
	Role             organization.Role
	InvitedAt        time.Time

	email string // normalised
}

// PendingInvitations lists the pending invitations of an address (the signed-in caller's; whether or
// not the address had a user when it was invited).
func (s *Service) PendingInvitations(ctx context.Context, email string) ([]PendingInvitation, error) {
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return nil, err
	}
	invs, err := s.opts.Reader.InvitationsFor(ctx, norm, s.inviteeHash(norm))
	if err != nil {
		return nil, err
	}
	out := make([]PendingInvitation, 0, len(invs))
	for _, inv := range invs {
		o, err := s.opts.Reader.Organization(ctx, inv.OrganizationID)
		if errors.Is(err, organizationsrm.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, PendingInvitation{ID: invitationID(inv), OrganizationID: inv.OrganizationID,
			OrganizationName: o.Name, Role: inv.Role, InvitedAt: inv.InvitedAt, email: norm})
	}
	return out, nil
}

// pending finds the caller's pending invitation by id; anything else (another address's, one that
// does not exist) is the same CodeNotFound.
func (s *Service) pending(ctx context.Context, email string, id uuid.UUID) (PendingInvitation, error) {
	invs, err := s.PendingInvitations(ctx, email)
	if err != nil {
		return PendingInvitation{}, err
	}
	for _, inv := range invs {
		if inv.ID == id {
			return inv, nil
		}
	}
	return PendingInvitation{}, domain.Errorf(domain.CodeNotFound, "no invitation %s", id)
}

// AcceptInvitation makes the user a member through the pending invitation id of their address, and
// returns the organisation's id. The caller has established that the user owns the address.
func (s *Service) AcceptInvitation(ctx context.Context, user uuid.UUID, email string, id uuid.UUID, md eventstore.Metadata) (uuid.UUID, error) {
	inv, err := s.pending(ctx, email, id)
	if err != nil {
		return uuid.Nil, err
	}
	sealed, err := s.sealEmail(ctx, user, email)
	if err != nil {
		return uuid.Nil, err
	}
	cmd := organization.AcceptInvitation{UserID: user, Email: email, EmailHash: s.inviteeHash(inv.email), SealedEmail: sealed, At: s.now()}
	if _, err := s.exec(ctx, inv.OrganizationID, cmd, md); err != nil {
		return uuid.Nil, notFoundAs(err, id)
	}
	return inv.OrganizationID, nil
}

// DeclineInvitation ends the pending invitation id of the user's address.
func (s *Service) DeclineInvitation(ctx context.Context, user uuid.UUID, email string, id uuid.UUID, md eventstore.Metadata) error {
	inv, err := s.pending(ctx, email, id)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, inv.OrganizationID, organization.DeclineInvitation{UserID: user, Email: email, EmailHash: s.inviteeHash(inv.email), At: s.now()}, md)
	return notFoundAs(err, id)
}

// notFoundAs answers an invitation the log no longer holds (the read model lagged) as pending does.
func notFoundAs(err error, id uuid.UUID) error {
	if domain.ErrorCode(err) == domain.CodeNotFound {
		return domain.Errorf(domain.CodeNotFound, "no invitation %s", id)
	}
	return err
}

// BackfillBatch is how many users Backfill reads at a time.
const BackfillBatch = 200

// Backfill gives every user of the identity read model who has no personal organisation one, and
// returns how many it made. Erased users are passed over; a user it cannot serve is reported in the
// error once the others are done. It is idempotent and safe to run on several replicas at once.
func (s *Service) Backfill(ctx context.Context, md eventstore.Metadata) (int, error) {
	n := 0
	seen := map[uuid.UUID]bool{}
	var failed []error
	for {
		users, err := s.opts.Reader.UsersWithoutPersonalOrganization(ctx, BackfillBatch)
		if err != nil {
			return n, err
		}
		fresh := 0
		for _, u := range users {
			if seen[u.ID] {
				continue
			}
			seen[u.ID] = true
			fresh++
			if _, err := s.EnsurePersonal(ctx, u.ID, u.Email, md); err != nil {
				if ctx.Err() != nil || domain.ErrorCode(err) == domain.CodeUnavailable {
					return n, err
				}
				if errors.Is(err, vault.ErrShredded) {
					continue // the user's data key is gone (an erasure stopped half-way): nothing to seal for them
				}
				// One user's refusal must not keep the users after them from their organisation.
				failed = append(failed, err)
				continue
			}
			n++
		}
		// Done when nothing is left, or when the read model still lists only users already handled
		// (it lags, or no waiter is configured): their organisations are in the log either way.
		if fresh == 0 {
			return n, errors.Join(failed...)
		}
	}
}

// Create makes a new organisation with the actor as its owner.
func (s *Service) Create(ctx context.Context, actor uuid.UUID, actorEmail, name string, md eventstore.Metadata) (uuid.UUID, error) {
	org := uuid.Must(uuid.NewV7())
	sealed, err := s.sealEmail(ctx, actor, actorEmail)
	if err != nil {
		return uuid.Nil, err
	}
	_, err = s.exec(ctx, org, organization.CreateOrganization{OrganizationID: org, Name: name, Creator: actor, CreatorEmail: actorEmail, CreatorSealedEmail: sealed, At: s.now()}, md)
	if err != nil {
		return uuid.Nil, err
	}
	return org, nil
}

// Rename renames an organisation.
func (s *Service) Rename(ctx context.Context, actor, org uuid.UUID, name string, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.RenameOrganization{Actor: actor, Name: name, At: s.now()}, md)
	return err
}

// Invited says what an invitation did: the address (normalised) is invited, pending its answer.
type Invited struct {
	Email string
}

// Invite invites an address with a role. Whether the address has a Workbench user or not, the
// invitation waits, pending, until the invitee accepts or declines it (signed in with that address),
// and the answer is the same: it says nothing about the address's account.
func (s *Service) Invite(ctx context.Context, actor, org uuid.UUID, email string, role organization.Role, md eventstore.Metadata) (Invited, error) {
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return Invited{}, err
	}
	cmd := organization.InviteMember{Actor: actor, Email: norm, Role: role, At: s.now()}
	if h := s.inviteeHash(norm); h != "" {
		sealed, err := s.opts.Vault.Seal(ctx, organization.InviteeSubject(h), organization.InviteeEmailPurpose, []byte(norm))
		if errors.Is(err, vault.ErrShredded) {
			// The address's user was erased: the invitation names it by the hash alone, and the
			// answer is the one any address gets.
			sealed, err = domain.Sealed{}, nil
		}
		if err != nil {
			return Invited{}, fmt.Errorf("seal the invited address: %w", err)
		}
		cmd.EmailHash, cmd.SealedEmail = h, sealed
	}
	if _, err := s.exec(ctx, org, cmd, md); err != nil {
		return Invited{}, err
	}
	return Invited{Email: norm}, nil
}

// RevokeInvitation withdraws a pending invitation.
func (s *Service) RevokeInvitation(ctx context.Context, actor, org uuid.UUID, email string, md eventstore.Metadata) error {
	norm, err := identitydom.NormalizeEmail(email)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, org, organization.RevokeInvitation{Actor: actor, Email: norm, EmailHash: s.inviteeHash(norm), At: s.now()}, md)
	return err
}

// RevokeInvitationByID withdraws the pending invitation id of an organisation (what its admins list),
// whose address may have been erased.
func (s *Service) RevokeInvitationByID(ctx context.Context, actor, org, id uuid.UUID, md eventstore.Metadata) error {
	invs, err := s.opts.Reader.Invitations(ctx, org)
	if err != nil {
		return err
	}
	for _, inv := range invs {
		if invitationID(inv) == id {
			_, err := s.exec(ctx, org, organization.RevokeInvitation{Actor: actor, Email: inv.Email, EmailHash: inv.EmailHash, At: s.now()}, md)
			return err
		}
	}
	return domain.Errorf(domain.CodeNotFound, "no invitation %s", id)
}

// OrgInvitation is a pending invitation of an organisation, as its owners and admins see it.
type OrgInvitation struct {
	ID uuid.UUID
	// Email is the invited address; for an invitation whose address was erased, a pseudonym
	// (identity.PseudonymPrefix and 16 hex digits of its hash).
	Email     string
	Erased    bool
	Role      organization.Role
	InvitedBy uuid.UUID
	InvitedAt time.Time
}

// Invitations lists an organisation's pending invitations with their addresses, unsealed where the log
// holds them sealed.
func (s *Service) Invitations(ctx context.Context, org uuid.UUID) ([]OrgInvitation, error) {
	invs, err := s.opts.Reader.Invitations(ctx, org)
	if err != nil {
		return nil, err
	}
	out := make([]OrgInvitation, 0, len(invs))
	for _, inv := range invs {
		o := OrgInvitation{ID: invitationID(inv), Email: inv.Email, Role: inv.Role, InvitedBy: inv.InvitedBy, InvitedAt: inv.InvitedAt}
		if inv.EmailHash != "" {
			email, err := s.openInvitee(ctx, inv)
			switch {
			case errors.Is(err, vault.ErrShredded) || err == nil && email == "":
				o.Email, o.Erased = identitydom.PseudonymPrefix+inv.EmailHash[:min(16, len(inv.EmailHash))], true
			case err != nil:
				return nil, err
			default:
				o.Email = email
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// openInvitee unseals the address of an invitation recorded by hash.
func (s *Service) openInvitee(ctx context.Context, inv organizationsrm.Invitation) (string, error) {
	if inv.SealedEmail.IsZero() {
		return "", nil
	}
	if s.opts.Vault == nil {
		return "", fmt.Errorf("organizations: cannot read the address of invitation %s", invitationID(inv))
	}
	b, err := s.opts.Vault.Open(ctx, inv.SealedEmail, organization.InviteeEmailPurpose)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// ChangeRole changes a member's role.
func (s *Service) ChangeRole(ctx context.Context, actor, org, user uuid.UUID, role organization.Role, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.ChangeRole{Actor: actor, UserID: user, Role: role, At: s.now()}, md)
	return err
}

// RemoveMember ends a membership (the actor themselves: leaving). The member's agents in the
// organisation are deleted, and their API keys revoked.
func (s *Service) RemoveMember(ctx context.Context, actor, org, user uuid.UUID, md eventstore.Metadata) error {
	res, err := s.exec(ctx, org, organization.RemoveMember{Actor: actor, UserID: user, At: s.now()}, md)
	if err != nil {
		return err
	}
	return s.revokeDeleted(ctx, res, md)
}

// CreateGuild adds a guild and returns its id.
func (s *Service) CreateGuild(ctx context.Context, actor, org uuid.UUID, name string, md eventstore.Metadata) (uuid.UUID, error) {
	id := uuid.Must(uuid.NewV7())
	if _, err := s.exec(ctx, org, organization.CreateGuild{Actor: actor, GuildID: id, Name: name, At: s.now()}, md); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// RenameGuild renames a guild.
func (s *Service) RenameGuild(ctx context.Context, actor, org, guild uuid.UUID, name string, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.RenameGuild{Actor: actor, GuildID: guild, Name: name, At: s.now()}, md)
	return err
}

// DeleteGuild removes a guild; its agents move to no guild.
func (s *Service) DeleteGuild(ctx context.Context, actor, org, guild uuid.UUID, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.DeleteGuild{Actor: actor, GuildID: guild, At: s.now()}, md)
	return err
}

// AddGuildMember puts a member in a guild.
func (s *Service) AddGuildMember(ctx context.Context, actor, org, guild, user uuid.UUID, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.AddGuildMember{Actor: actor, GuildID: guild, UserID: user, At: s.now()}, md)
	return err
}

// RemoveGuildMember takes a member out of a guild.
func (s *Service) RemoveGuildMember(ctx context.Context, actor, org, guild, user uuid.UUID, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.RemoveGuildMember{Actor: actor, GuildID: guild, UserID: user, At: s.now()}, md)
	return err
}

// CreateAgent adds an agent owned by the actor, optionally in a guild (uuid.Nil: none), and returns
// its id.
func (s *Service) CreateAgent(ctx context.Context, actor, org uuid.UUID, name string, guild uuid.UUID, md eventstore.Metadata) (uuid.UUID, error) {
	id := uuid.Must(uuid.NewV7())
	if _, err := s.exec(ctx, org, organization.CreateAgent{Actor: actor, AgentID: id, Name: name, GuildID: guild, At: s.now()}, md); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// RenameAgent renames an agent.
func (s *Service) RenameAgent(ctx context.Context, actor, org, agent uuid.UUID, name string, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.RenameAgent{Actor: actor, AgentID: agent, Name: name, At: s.now()}, md)
	return err
}

// MoveAgent puts an agent in a guild, or in none (uuid.Nil).
func (s *Service) MoveAgent(ctx context.Context, actor, org, agent, guild uuid.UUID, md eventstore.Metadata) error {
	_, err := s.exec(ctx, org, organization.MoveAgent{Actor: actor, AgentID: agent, GuildID: guild, At: s.now()}, md)
	return err
}

// DeleteAgent retires an agent and revokes its API key.
func (s *Service) DeleteAgent(ctx context.Context, actor, org, agent uuid.UUID, md eventstore.Metadata) error {
	res, err := s.exec(ctx, org, organization.DeleteAgent{Actor: actor, AgentID: agent, At: s.now()}, md)
	if err != nil {
		return err
	}
	return s.revokeDeleted(ctx, res, md)
}

// revokeDeleted revokes the API key and the OAuth grants of every agent a result deleted, and removes
// its connector logins, and waits until the read models have the revocations: the agent's
// credentials are refused, and its logins' credentials shredded, by the time the deletion is
// answered. An agent without a live key, grants or logins is nothing to revoke.
func (s *Service) revokeDeleted(ctx context.Context, res eventstore.Result[organization.State, domain.Event], md eventstore.Metadata) error {
	for _, ev := range res.Events {
		d, ok := ev.(organization.AgentDeleted)
		if !ok {
			continue
		}
		owner := res.State.Agents[d.AgentID].OwnerID
		if s.opts.Logins != nil {
			if err := s.opts.Logins.RemoveAgentLogins(ctx, d.AgentID, md); err != nil {
				return fmt.Errorf("remove the connector logins of deleted agent %s: %w", d.AgentID, err)
			}
		}
		if s.opts.Grants != nil {
			if err := s.opts.Grants.RevokeAgentGrants(ctx, owner, d.AgentID, md); err != nil {
				return fmt.Errorf("revoke the OAuth grants of deleted agent %s: %w", d.AgentID, err)
			}
		}
		if s.opts.Keys == nil {
			continue
		}
		pos, err := s.opts.Keys.RevokeAgentKey(ctx, owner, d.AgentID, md)
		if domain.ErrorCode(err) == domain.CodeConflict {
			continue // no live key
		}
		if err != nil {
			return fmt.Errorf("revoke the key of deleted agent %s: %w", d.AgentID, err)
		}
		if s.opts.Projections != nil && !pos.IsZero() {
			if err := s.opts.Projections.WaitForProjection(ctx, identityrm.Name, pos); err != nil {
				return fmt.Errorf("organizations: the key of deleted agent %s is revoked, but the read model has not applied it yet: %w", d.AgentID, err)
			}
		}
	}
	return nil
}

// AgentOf checks, against the log, that agent exists and belongs to user; it is what credential
// creation (app/accounts, the OAuth consent) asks before binding a credential to an agent. An agent
// that is not the user's, or does not exist, is CodeNotFound.
func (s *Service) AgentOf(ctx context.Context, user, agent uuid.UUID) error {
	if agent == identitydom.DefaultAgentID(user) {
		return nil
	}
	c, err := s.opts.Reader.Chain(ctx, agent)
	if errors.Is(err, organizationsrm.ErrNotFound) {
		return domain.Errorf(domain.CodeNotFound, "you have no agent %s", agent)
	}
	if err != nil {
		return err
	}
	st, err := s.State(ctx, c.OrganizationID)
	if err != nil {
		return err
	}
	a, ok := st.Agent(agent)
	if !ok || a.OwnerID != user {
		return domain.Errorf(domain.CodeNotFound, "you have no agent %s", agent)
	}
	if _, member := st.Members[user]; !member {
		return domain.Errorf(domain.CodeNotFound, "you have no agent %s", agent)
	}
	return nil
}

// RunBackfill waits until ready answers nil (the read models have caught up with the log, so the
// identity read model lists every user), then runs Backfill once. It is what `workbench serve` starts
// in the background; every replica may run it.
func (s *Service) RunBackfill(ctx context.Context, ready func(context.Context) error, poll time.Duration, md eventstore.Metadata) (int, error) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for ready(ctx) != nil {
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-t.C:
		}
	}
	return s.Backfill(ctx, md)
}
