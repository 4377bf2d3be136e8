// Package orgs serves the scope routes under /api/orgs: organisations, their members and pending
// invitations, guilds and agents, and each agent's API key. The caller is the portal session (same
// origin only) or a Bearer credential (a workbench API key or OAuth access token); whichever it is, the
// user behind it is the actor, and domain/organization decides what that user may do.
//
// An invitation never makes a member by itself: the invitee, signed in to the portal with the invited
// address, accepts or declines it. The answer to an invitation is the same whether the address has a
// Workbench account or not, so inviting does not reveal accounts; an invitation id that is not the
// caller's reads as one that does not exist.
//
// Every route under /api/orgs/{org} first checks that the caller is a member of {org}: any other
// organisation's id, and any guild or agent id that is not {org}'s, is a 404, never a 403, so ids of
// other organisations are not disclosed. Writes go through app/organizations; statuses come from the
// one table in handlers/errors.go (400 bad input, 403 a role that does not allow the change, 404, 409
// a state that does not allow it, 503 storage unavailable).
//
//	GET    /api/orgs                                          the caller's organisations, with their role
//	POST   /api/orgs                                          {name} → 201 a new organisation, caller owner
//	GET    /api/orgs/invitations                              the pending invitations of the caller's address
//	POST   /api/orgs/invitations/{id}/accept                  200 the organisation, now joined (portal session only)
//	POST   /api/orgs/invitations/{id}/decline                 204 (portal session only)
//	GET    /api/orgs/{org}                                    the organisation page: members, invitations, guilds, agents with their API key and MCP clients
//	PATCH  /api/orgs/{org}                                    {name}
//	POST   /api/orgs/{org}/members                            {email, role} → 201 {status: invited}, whether the address has an account or not
//	PATCH  /api/orgs/{org}/members/{user}                     {role}
//	DELETE /api/orgs/{org}/members/{user}                     204 (the caller's own id: leave)
//	DELETE /api/orgs/{org}/invitations/{email}                204
//	POST   /api/orgs/{org}/guilds                             {name} → 201
//	GET    /api/orgs/{org}/guilds/{guild}                     the guild page: members and agents
//	PATCH  /api/orgs/{org}/guilds/{guild}                     {name}
//	DELETE /api/orgs/{org}/guilds/{guild}                     204; its agents move to no guild
//	PUT    /api/orgs/{org}/guilds/{guild}/members/{user}      204
//	DELETE /api/orgs/{org}/guilds/{guild}/members/{user}      204
//	POST   /api/orgs/{org}/agents                             {name, guild_id?} → 201
//	PATCH  /api/orgs/{org}/agents/{agent}                     {name?, guild_id?} (guild_id null: no guild)
//	DELETE /api/orgs/{org}/agents/{agent}                     204; its API key is revoked
//	POST   /api/orgs/{org}/agents/{agent}/apikey              201 {key, prefix}: mint, or rotate the live key (the agent's owner only)
//	DELETE /api/orgs/{org}/agents/{agent}/apikey              204 (the agent's owner only)
package orgs
