package organization

import (
	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identity"
)

// namespace is the UUID version 5 namespace of the well-known ids. It never changes: ids derived
// from it are stored in the log.
var namespace = uuid.MustParse("5b0f3a8e-8d0c-4c55-9a51-3f0c2b7e7a10")

// PersonalOrganizationID is the id of a user's personal organisation.
func PersonalOrganizationID(userID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(namespace, []byte("personal-organization:"+userID.String()))
}

// DefaultAgentID is the id of a user's default agent, in their personal organisation. A credential
// that names no agent (every API key and OAuth grant made before agents existed) acts as this agent.
// The id is defined in domain/identity, whose key events need it too.
func DefaultAgentID(userID uuid.UUID) uuid.UUID { return identity.DefaultAgentID(userID) }

// InvitationID is the id of the pending invitation of an address (normalised) to an organisation:
// one per organisation and address, derived so that invitations recorded before ids existed have one.
// It names the invitation to its invitee; accepting it still needs the invited address.
func InvitationID(orgID uuid.UUID, email string) uuid.UUID {
	return uuid.NewSHA1(namespace, []byte("invitation:"+orgID.String()+":"+email))
}

// StreamName is the stream of one organisation: "organization-<uuid>".
func StreamName(orgID uuid.UUID) string { return "organization-" + orgID.String() }
