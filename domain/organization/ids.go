package organization

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain/identitydom"
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
// The id is defined in domain/identitydom, whose key events need it too.
func DefaultAgentID(userID uuid.UUID) uuid.UUID { return identitydom.DefaultAgentID(userID) }

// InvitationID is the id of the pending invitation of an address (normalised) to an organisation:
// one per organisation and address, derived so that invitations recorded before ids existed have one.
// It names the invitation to its invitee; accepting it still needs the invited address.
func InvitationID(orgID uuid.UUID, email string) uuid.UUID {
	return uuid.NewSHA1(namespace, []byte("invitation:"+orgID.String()+":"+email))
}

// InvitationIDOfHash is the id of an invitation recorded by the hash of its address (InviteeHash).
func InvitationIDOfHash(orgID uuid.UUID, hash string) uuid.UUID {
	return uuid.NewSHA1(namespace, []byte("invitation-hash:"+orgID.String()+":"+hash))
}

// InviteeHash is the keyed hash (HMAC-SHA256, hex) that names a normalised address in an invitation.
// key is derived from the master key, so the hash cannot be recomputed from an address alone.
func InviteeHash(key []byte, email string) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("invitee:" + email))
	return hex.EncodeToString(m.Sum(nil))
}

// InviteeSubject is the vault subject that seals the address of invitations with hash h; erasing the
// user of the address shreds it.
func InviteeSubject(h string) string { return "invitee-" + h }

// StreamName is the stream of one organisation: "organization-<uuid>".
func StreamName(orgID uuid.UUID) string { return "organization-" + orgID.String() }
