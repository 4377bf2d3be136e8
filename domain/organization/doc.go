// Package organization owns the scopes and principals of Workbench as events: organisations, their
// members and roles, pending invitations, guilds (teams inside an organisation) and agents (the
// principal an MCP credential acts as).
//
// # Mapping
//
// An organisation is a group of users. Every user has a personal organisation, created at first
// sign-in (or by the backfill that runs at boot for users who signed up before organisations
// existed), in which they are the owner and which holds their default agent. Owners and admins invite
// members by email; the invitee becomes a member by accepting (or ends it by declining). A guild is a team inside one organisation. An agent is one MCP credential's
// principal: a user may create several named agents, each optionally in a guild, and every API key and
// OAuth grant belongs to exactly one agent. A request therefore resolves agent → guild (optional) →
// organisation.
//
// # Streams
//
// One aggregate per organisation, in "organization-<uuid>" (StreamName): the organisation, its
// members, invitations, guilds and agents. Keeping them in one stream lets Decide check every rule in
// one place (a guild named by an agent exists, the actor's role allows the change, the last owner
// stays) without a read model.
//
// # Well-known ids
//
// The personal organisation and the default agent of a user have ids derived from the user id
// (PersonalOrganizationID, DefaultAgentID; UUID version 5). This is what makes the upgrade lossless: an
// API key minted or an OAuth grant made before agents existed carries no agent, and resolves to
// DefaultAgentID(owner) — a pure function, so no row has to be rewritten and a credential authenticates
// before the backfill has run. Creating a personal organisation twice, from two replicas or from a
// retried sign-in, decides nothing the second time.
//
// # Authorisation
//
// Every command names its Actor. An actor who is not a member gets CodeNotFound, never CodeForbidden:
// another organisation's ids are not disclosed. Owners and admins invite, add and remove members,
// change roles, and manage guilds; only an owner grants or takes away the owner role, and the last
// owner can be neither demoted nor removed. Any member creates agents (they own them) in no guild or in
// a guild they belong to; an agent's owner, or an owner or admin, renames, moves and deletes it, and a
// move is held to the guilds of the agent's owner as creation is. The
// default agent cannot be deleted: legacy credentials resolve to it.
package organization
