package organization

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
	"github.com/workbench/workbench/domain/identitydom"
)

// DefaultAgentName is the name of the agent a personal organisation starts with.
const DefaultAgentName = "Default agent"

// CreateOrganization creates an organisation with its creator as the first owner. A personal
// organisation (Personal) must have the id PersonalOrganizationID(Creator) and also gets the creator's
// default agent (DefaultAgentID). Creating an organisation that already exists with the same id and
// creator decides nothing, so a retried or concurrent first sign-in is harmless.
type CreateOrganization struct {
	OrganizationID uuid.UUID
	Name           string
	Personal       bool
	Creator        uuid.UUID
	CreatorEmail   string
	// CreatorSealedEmail, when set, is CreatorEmail sealed for the creator (MemberEmailPurpose): the
	// creator's MemberAdded then carries it instead of the address in clear.
	CreatorSealedEmail domain.Sealed
	At                 time.Time
}

func (c CreateOrganization) decide(s State) ([]domain.Event, error) {
	const what = "create organisation"
	if c.OrganizationID == uuid.Nil {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: no organisation id", what)
	}
	if err := checkActor(what, c.Creator); err != nil {
		return nil, err
	}
	if c.Personal && c.OrganizationID != PersonalOrganizationID(c.Creator) {
		return nil, domain.Errorf(domain.CodeInvalid, "%s: a personal organisation's id must be PersonalOrganizationID of its owner", what)
	}
	name, err := normalizeName(what, "organisation", c.Name)
	if err != nil {
		return nil, err
	}
	email, err := identitydom.NormalizeEmail(c.CreatorEmail)
	if err != nil {
		return nil, err
	}
	at, err := checkTime(what, c.At)
	if err != nil {
		return nil, err
	}
	if err := checkSealedEmail(what, c.Creator, c.CreatorSealedEmail); err != nil {
		return nil, err
	}
	if s.Exists() {
		if s.CreatedBy == c.Creator && s.Personal == c.Personal {
			return nil, nil
		}
		return nil, domain.Errorf(domain.CodeConflict, "%s: organisation %s already exists", what, c.OrganizationID)
	}
	evs := []domain.Event{
		OrganizationCreated{OrganizationID: c.OrganizationID, Name: name, Personal: c.Personal, CreatedBy: c.Creator, CreatedAt: at},
		memberAdded(MemberAdded{OrganizationID: c.OrganizationID, UserID: c.Creator, Role: RoleOwner, AddedBy: c.Creator, At: at}, email, c.CreatorSealedEmail),
	}
	if c.Personal {
		evs = append(evs, AgentCreated{OrganizationID: c.OrganizationID, AgentID: DefaultAgentID(c.Creator), OwnerID: c.Creator,
			Name: DefaultAgentName, Default: true, CreatedBy: c.Creator, At: at})
	}
	return evs, nil
}

// RenameOrganization changes the organisation's name (owners and admins).
type RenameOrganization struct {
	Actor uuid.UUID
	Name  string
	At    time.Time
}

func (c RenameOrganization) decide(s State) ([]domain.Event, error) {
	const what = "rename organisation"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	name, err := normalizeName(what, "organisation", c.Name)
	if err != nil {
		return nil, err
	}
	if _, err := s.manager(what, c.Actor); err != nil {
		return nil, err
	}
	if name == s.Name {
		return nil, nil
	}
	return []domain.Event{OrganizationRenamed{OrganizationID: s.ID, Name: name, RenamedBy: c.Actor, At: at}}, nil
}

// checkSealedEmail refuses a sealed address that is not sealed for the user it names.
func checkSealedEmail(what string, user uuid.UUID, sealed domain.Sealed) error {
	if !sealed.IsZero() && sealed.Subject != user.String() {
		return domain.Errorf(domain.CodeInvalid, "%s: the address is sealed for %q, not for the member", what, sealed.Subject)
	}
	return nil
}

// memberAdded is e with the member's address: sealed when it is, in clear otherwise.
func memberAdded(e MemberAdded, email string, sealed domain.Sealed) MemberAdded {
	if sealed.IsZero() {
		e.Email = email
	} else {
		e.SealedEmail = sealed
	}
	return e
}
