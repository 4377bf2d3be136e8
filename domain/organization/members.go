package organization

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// checkGrant refuses a role the actor may not hand out: only an owner makes owners.
func checkGrant(what string, actor Member, role Role) error {
	if !role.Valid() {
		return domain.Errorf(domain.CodeInvalid, "%s: role %q is not one of owner, admin, member", what, role)
	}
	if role == RoleOwner && actor.Role != RoleOwner {
		return domain.Errorf(domain.CodeForbidden, "%s: only an owner may make an owner", what)
	}
	return nil
}

// InviteMember invites an address, whether or not a Workbench user has it: membership starts only
// when the invitee accepts (AcceptInvitation). Re-inviting a pending address with another role
// replaces the role; with the same role it decides nothing.
//
// With EmailHash (InviteeHash of Email) and SealedEmail (Email sealed under InviteeSubject(EmailHash),
// InviteeEmailPurpose; none when that subject was shredded), MemberInvited names the address by them
// only; an invitation of the address already pending in clear (an older one) is updated in clear.
type InviteMember struct {
	Actor       uuid.UUID
	Email       string
	EmailHash   string
	SealedEmail domain.Sealed
	Role        Role
	At          time.Time
}

// checkInvitee refuses an address sealed for another subject than the hash's. A hash without a sealed
// address is an address that was erased (its subject shredded).
func checkInvitee(what, h string, sealed domain.Sealed) error {
	if sealed.IsZero() {
		return nil
	}
	if h == "" || sealed.Subject != InviteeSubject(h) {
		return domain.Errorf(domain.CodeInvalid, "%s: the address must be sealed for %q", what, InviteeSubject(h))
	}
	return nil
}

func (c InviteMember) decide(s State) ([]domain.Event, error) {
	const what = "invite member"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	email, err := identitydom.NormalizeEmail(c.Email)
	if err != nil {
		return nil, err
	}
	actor, err := s.manager(what, c.Actor)
	if err != nil {
		return nil, err
	}
	if err := checkGrant(what, actor, c.Role); err != nil {
		return nil, err
	}
	for _, m := range s.Members {
		if m.Email == email || c.EmailHash != "" && m.EmailHash == c.EmailHash {
			return nil, domain.Errorf(domain.CodeConflict, "%s: %s is already a member", what, email)
		}
	}
	if err := checkInvitee(what, c.EmailHash, c.SealedEmail); err != nil {
		return nil, err
	}
	inv, ok := s.Invitation(email, c.EmailHash)
	if ok && inv.Role == c.Role {
		return nil, nil
	}
	if (ok && inv.EmailHash == "") || c.EmailHash == "" {
		return []domain.Event{MemberInvited{OrganizationID: s.ID, Email: email, Role: c.Role, InvitedBy: c.Actor, At: at}}, nil
	}
	return []domain.Event{MemberInvited{OrganizationID: s.ID, EmailHash: c.EmailHash, SealedEmail: c.SealedEmail, Role: c.Role, InvitedBy: c.Actor, At: at}}, nil
}

// RevokeInvitation withdraws a pending invitation (owners and admins).
// EmailHash (InviteeHash of Email) finds an invitation recorded by hash; with it, Email may be empty
// (an erased address, which only its hash names).
type RevokeInvitation struct {
	Actor     uuid.UUID
	Email     string
	EmailHash string
	At        time.Time
}

func (c RevokeInvitation) decide(s State) ([]domain.Event, error) {
	const what = "revoke invitation"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	var email string
	if c.Email != "" || c.EmailHash == "" {
		if email, err = identitydom.NormalizeEmail(c.Email); err != nil {
			return nil, err
		}
	}
	actor, err := s.manager(what, c.Actor)
	if err != nil {
		return nil, err
	}
	inv, ok := s.Invitation(email, c.EmailHash)
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: %s has no pending invitation", what, invitationKey(email, c.EmailHash))
	}
	if inv.Role == RoleOwner && actor.Role != RoleOwner {
		return nil, domain.Errorf(domain.CodeForbidden, "%s: only an owner may withdraw an invitation to be an owner", what)
	}
	return []domain.Event{InvitationRevoked{OrganizationID: s.ID, Email: inv.Email, EmailHash: inv.EmailHash, RevokedBy: c.Actor, At: at}}, nil
}

// AddMember makes an existing user a member at once (owners and admins); the caller has looked the
// user up by the address it was given. Adding a member again is a conflict, as inviting one is. No
// route uses it any more: an owner or admin invites, and the invitee accepts.
type AddMember struct {
	Actor  uuid.UUID
	UserID uuid.UUID
	Email  string
	// SealedEmail, when set, is Email sealed for the user (MemberEmailPurpose): MemberAdded carries it
	// instead of the address, unless an invitation of the address is pending (the log holds it anyway).
	SealedEmail domain.Sealed
	// EmailHash (InviteeHash of Email) finds an invitation of the address recorded by hash.
	EmailHash string
	Role      Role
	At        time.Time
}

func (c AddMember) decide(s State) ([]domain.Event, error) {
	const what = "add member"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"user", c.UserID})
	if err != nil {
		return nil, err
	}
	email, err := identitydom.NormalizeEmail(c.Email)
	if err != nil {
		return nil, err
	}
	actor, err := s.manager(what, c.Actor)
	if err != nil {
		return nil, err
	}
	if err := checkGrant(what, actor, c.Role); err != nil {
		return nil, err
	}
	if err := checkSealedEmail(what, c.UserID, c.SealedEmail); err != nil {
		return nil, err
	}
	if _, ok := s.Members[c.UserID]; ok {
		return nil, domain.Errorf(domain.CodeConflict, "%s: %s is already a member", what, email)
	}
	sealed := c.SealedEmail
	e := MemberAdded{OrganizationID: s.ID, UserID: c.UserID, Role: c.Role, AddedBy: c.Actor, At: at}
	if inv, pending := s.Invitation(email, c.EmailHash); pending {
		if inv.EmailHash == "" {
			sealed = domain.Sealed{} // MemberAdded must name the address to close its invitation
		} else {
			e.InvitationHash = inv.EmailHash
		}
	}
	return []domain.Event{memberAdded(e, email, sealed)}, nil
}

// AcceptInvitation makes the invitee a member, with the invitation's role, when they accept it. The
// caller has established that the user owns the address (they are signed in with it). An address
// without a pending invitation is CodeNotFound; a user who is already a member retires the
// invitation instead. EmailHash (InviteeHash of Email) finds an invitation recorded by hash; the
// MemberAdded that closes one carries SealedEmail (Email sealed for the user, MemberEmailPurpose)
// instead of the address.
type AcceptInvitation struct {
	UserID      uuid.UUID
	Email       string
	EmailHash   string
	SealedEmail domain.Sealed
	At          time.Time
}

func (c AcceptInvitation) decide(s State) ([]domain.Event, error) {
	const what = "accept invitation"
	email, at, inv, err := pendingFor(what, s, c.UserID, c.Email, c.EmailHash, c.At)
	if err != nil {
		return nil, err
	}
	if err := checkSealedEmail(what, c.UserID, c.SealedEmail); err != nil {
		return nil, err
	}
	if _, member := s.Members[c.UserID]; member {
		return []domain.Event{InvitationRevoked{OrganizationID: s.ID, Email: inv.Email, EmailHash: inv.EmailHash, RevokedBy: c.UserID, At: at}}, nil
	}
	e := MemberAdded{OrganizationID: s.ID, UserID: c.UserID, Role: inv.Role, AddedBy: inv.InvitedBy, Invited: true, At: at}
	if inv.EmailHash == "" {
		e.Email = email // closes the invitation of the address in clear, as the log already holds it
		return []domain.Event{e}, nil
	}
	e.InvitationHash = inv.EmailHash
	return []domain.Event{memberAdded(e, email, c.SealedEmail)}, nil
}

// DeclineInvitation ends a pending invitation at the invitee's word. As for AcceptInvitation, the
// caller has established that the user owns the address; no pending invitation is CodeNotFound.
type DeclineInvitation struct {
	UserID    uuid.UUID
	Email     string
	EmailHash string // as in AcceptInvitation
	At        time.Time
}

func (c DeclineInvitation) decide(s State) ([]domain.Event, error) {
	_, at, inv, err := pendingFor("decline invitation", s, c.UserID, c.Email, c.EmailHash, c.At)
	if err != nil {
		return nil, err
	}
	return []domain.Event{InvitationDeclined{OrganizationID: s.ID, Email: inv.Email, EmailHash: inv.EmailHash, UserID: c.UserID, At: at}}, nil
}

// pendingFor checks an invitee's answer (a user, her address, a time) and finds the pending
// invitation it answers, of the address or of its hash: CodeNotFound when there is none, or no
// organisation, so that an answer tells nothing of an invitation that is not the user's.
func pendingFor(what string, s State, user uuid.UUID, rawEmail, hash string, t time.Time) (string, time.Time, Invitation, error) {
	if user == uuid.Nil {
		return "", time.Time{}, Invitation{}, domain.Errorf(domain.CodeInvalid, "%s: no user id", what)
	}
	email, err := identitydom.NormalizeEmail(rawEmail)
	if err != nil {
		return "", time.Time{}, Invitation{}, err
	}
	at, err := checkTime(what, t)
	if err != nil {
		return "", time.Time{}, Invitation{}, err
	}
	inv, ok := s.Invitation(email, hash)
	if !ok || !s.Exists() {
		return "", time.Time{}, Invitation{}, domain.Errorf(domain.CodeNotFound, "%s: no such invitation", what)
	}
	return email, at, inv, nil
}

// ChangeRole changes a member's role. Owners and admins change roles; only an owner makes an owner or
// changes an owner's role; the last owner keeps the role.
type ChangeRole struct {
	Actor  uuid.UUID
	UserID uuid.UUID
	Role   Role
	At     time.Time
}

func (c ChangeRole) decide(s State) ([]domain.Event, error) {
	const what = "change role"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"user", c.UserID})
	if err != nil {
		return nil, err
	}
	actor, err := s.manager(what, c.Actor)
	if err != nil {
		return nil, err
	}
	if err := checkGrant(what, actor, c.Role); err != nil {
		return nil, err
	}
	target, ok := s.Members[c.UserID]
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: user %s is not a member", what, c.UserID)
	}
	if target.Role == c.Role {
		return nil, nil
	}
	if target.Role == RoleOwner {
		if actor.Role != RoleOwner {
			return nil, domain.Errorf(domain.CodeForbidden, "%s: only an owner may change an owner's role", what)
		}
		if s.owners() == 1 {
			return nil, domain.Errorf(domain.CodeConflict, "%s: %s is the last owner; make another owner first", what, target.label())
		}
		if s.Personal && target.UserID == s.CreatedBy {
			return nil, domain.Errorf(domain.CodeConflict, "%s: the owner of a personal organisation stays its owner", what)
		}
	}
	return []domain.Event{MemberRoleChanged{OrganizationID: s.ID, UserID: c.UserID, Role: c.Role, ChangedBy: c.Actor, At: at}}, nil
}

// RemoveMember ends a membership: owners and admins remove members, any member may leave (Actor equal
// to UserID). Only an owner removes an owner; the last owner, and the owner of a personal
// organisation, stay. The member's agents in the organisation are deleted with it.
type RemoveMember struct {
	Actor  uuid.UUID
	UserID uuid.UUID
	At     time.Time
}

func (c RemoveMember) decide(s State) ([]domain.Event, error) {
	const what = "remove member"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"user", c.UserID})
	if err != nil {
		return nil, err
	}
	actor, err := s.selfOrManager(what, c.Actor, c.UserID, "remove another member")
	if err != nil {
		return nil, err
	}
	target, ok := s.Members[c.UserID]
	if !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: user %s is not a member", what, c.UserID)
	}
	if s.Personal && target.UserID == s.CreatedBy {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the owner of a personal organisation cannot leave it", what)
	}
	if target.Role == RoleOwner {
		if actor.Role != RoleOwner {
			return nil, domain.Errorf(domain.CodeForbidden, "%s: only an owner may remove an owner", what)
		}
		if s.owners() == 1 {
			return nil, domain.Errorf(domain.CodeConflict, "%s: %s is the last owner; make another owner first", what, target.label())
		}
	}
	var evs []domain.Event
	for _, id := range sortedAgentIDs(s) {
		if a := s.Agents[id]; !a.Deleted && a.OwnerID == c.UserID {
			evs = append(evs, AgentDeleted{OrganizationID: s.ID, AgentID: id, DeletedBy: c.Actor, At: at})
		}
	}
	return append(evs, MemberRemoved{OrganizationID: s.ID, UserID: c.UserID, RemovedBy: c.Actor, At: at}), nil
}
