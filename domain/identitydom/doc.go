// Package identity owns workbench users and their workbench API keys, as events: who a user is (one
// stream per user, StreamName), which address belongs to whom (one stream per address,
// EmailStreamName), and the life of the one API key each of the user's agents may hold (minted,
// rotated, revoked).
//
// It is pure: Decide and Evolve see only the state and the command, which carries every time, id and
// hash. Randomness (NewAPIKey) and hashing helpers live beside them for the callers' use.
//
// # Streams and aggregates
//
// The user aggregate (Initial, Evolve, Decide with CreateUser, MintAPIKey, RotateAPIKey, RevokeAPIKey)
// lives in "user-<uuid>". The email claim aggregate (InitialEmailClaim, EvolveEmailClaim,
// DecideEmailClaim with ClaimEmail) lives in "user-email-<sha256 of the normalised address>". One codec
// covers both: eventstore.NewJSONCodec(identity.Events()...). With the command loop:
//
//	users := eventstore.Aggregate[identity.State, identity.Command, domain.Event]{
//		Initial: identity.Initial, Evolve: identity.Evolve, Decide: identity.Decide,
//		Codec: eventstore.NewJSONCodec(identity.Events()...),
//	}
//	res, err := eventstore.Execute(ctx, store, identity.StreamName(id), users,
//		identity.Command(identity.MintAPIKey{...}), md) // the conversion fixes C for inference
//
// # API keys
//
// A key is "wb_" and 43 base62 characters (32 random bytes). The log holds its hex SHA-256, which is
// the only thing that authenticates; its display prefix ("wb_abcd…"); and, optionally, the secret sealed
// under the user's data key so the owner can reveal it (shredding the user shreds it). Each key acts as
// one agent (domain/organization); a key event without an agent id belongs to the user's default agent
// (DefaultAgentID), which covers every key minted before agents existed. The product has one key per
// agent: minting while the agent's key is live is a conflict (rotate instead); rotate and revoke need
// a live key; a revoked or rotated-out key cannot be revoked again; key ids and secrets are never
// reused, across all of a user's agents.
//
// # Creating a user: claim the address, then create
//
// Addresses are unique without a read model. Creating a user is two appends to two streams, and the
// first one decides who owns the address:
//
//  1. Normalise the address and pick a fresh user id. Run ClaimEmail on EmailStreamName(email) with the
//     command loop (eventstore.Execute). A new stream is appended at version 0, that is with NoStream,
//     so of two concurrent claims exactly one wins; the loser re-decides and sees the winner's claim.
//     - The claim is recorded, or was already recorded for this same id: go on with that id.
//     - The address belongs to another id: the error's cause is an *EmailClaimedError naming it. Load
//     that user. If it exists, the address is taken (sign-in has found its user; `apikey create`
//     uses that user). If it does not exist, step two of an earlier create never happened (a crash, a
//     lost connection): go on with the claimed id, not the fresh one.
//  2. Run CreateUser with that id on StreamName(id). A conflict here means a concurrent creator of the
//     same address got there first: load the user and use it.
//
// The rule for a claim whose user was never created: the claim is never rewritten or released; the
// next create for the same address takes it over by creating the user under the claimed id. Nothing
// else refers to that id yet (its stream is empty), so finishing the interrupted create is the same as
// starting afresh, and no second claim event, no clean-up job and no time limit are needed. Whoever
// takes a claim over must have established that the caller owns the address (SSO sign-in, an operator
// at the CLI), exactly as for a fresh create. A changed or deleted address would need a release event;
// there is none yet because the product has no such operation.
//
// # Personal data in events
//
// The log is append-only and covered by a hash chain (app/compliance/auditchain), so nothing in it is ever
// rewritten; erasing a person must instead leave nothing of theirs readable. Since erasure exists:
//
//   - identity.user_created carries the email and display name only in Profile, ProfileData sealed
//     under the user's own data key (purpose ProfilePurpose); Email and DisplayName stay empty. Older
//     events carry them in clear, and every reader accepts both (projections/profile.Open).
//
//   - identity.email_claimed carries no address: the stream name (a SHA-256 of the normalised address)
//     already says which address it claims. Older claims carry it.
//
//   - identity.user_erased (EraseUser) records an erasure with a pseudonym ("erased-" and an HMAC of the
//     user id) and nothing personal. Folded, it replaces the email by the pseudonym, empties the display
//     name and the profile, and revokes the live key; an erased user takes no new key. The claim of the
//     address stays, naming the erased user, so the address never signs in as them again.
//
//   - signin_link.issued (domain/signindom) and organization.member_added (domain/organization) carry the
//     address sealed under the user's data key too (SealedEmail); an invitee's member_added names the
//     address of its invitation, which the invitation event already holds. identity.auditor_granted
//     carries no address, and identity.audit_read a keyed hash in place of a "user" filter's address.
//
// What the log still holds in clear about a person: the addresses in user_created, email_claimed,
// signin_link.issued and organization.member_added events written before these changes, invited
// addresses (organization.member_invited), provider account labels (connection.connected AccountHint)
// and the hash in an email stream's name, which whoever knows an address can recompute. The read
// models drop all of these on erasure, and the tasks that walk users (the organisation backfill) pass
// over erased ones.
package identitydom
