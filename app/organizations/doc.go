// Package organizations holds the use cases of scopes and principals: a user's personal organisation
// at sign-in (and the backfill that gives one to users who signed up before organisations existed),
// organisations, members, invitations, roles, guilds and agents. It owns the organisation aggregate's
// eventstore.Aggregate value (Organizations) and is the only code that appends to organisation streams.
//
// Every write names its actor and leaves the rules to domain/organization's Decide: a caller who is not
// a member gets CodeNotFound, a member whose role does not allow the change CodeForbidden. Writes wait
// for the organizations read model to apply them when a Waiter is configured, so a page reloaded after
// a change shows it.
//
// Deleting an agent (DeleteAgent, or RemoveMember for each agent of the member) also retires its
// credentials through Options.Keys (app/accounts: its API key) and Options.Grants (app/oauthclients:
// its OAuth grants, access tokens included) and Options.Logins (app/connectors: its agent-scope
// connector logins, removed and shredded as deleting a login does), waiting for their read models, so
// the agent's credentials are refused by the time the deletion is answered.
//
// An invitation (Invite) is pending until its invitee accepts or declines it (AcceptInvitation,
// DeclineInvitation), signed in with the invited address; sign-in itself joins nothing.
// With Options.InviteeKey the log names an invited address only by a keyed hash
// (organization.InviteeHash) and holds it sealed under organization.InviteeSubject of the hash, which
// erasing the address's user shreds; Invitations unseals it for the organisation's admins.
//
// # Upgrading
//
// Users who existed before this package have no organisation events. Nothing breaks meanwhile: their
// API keys and OAuth grants name no agent and resolve to identity.DefaultAgentID(user), a pure
// function. Backfill (run once at boot by `workbench serve`, idempotent, safe on every replica at once)
// creates each such user's personal organisation with that default agent, so Chain answers for it.
// A user who signs in first gets the same organisation from SignedIn; the ids are derived from the user
// id, so the two never make two organisations.
package organizations
