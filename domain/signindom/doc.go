// Package signin owns the one-time sign-in link as events: the link `workbench serve` prints at start
// when no SSO provider is configured (spec, What the portal is for: there is no password login, so
// this link is how the first person gets in on the embedded default).
//
// A link is a random token the server prints once and never stores. Its stream is
// "signin_link-<hex SHA-256 of the token>" (StreamName): LinkIssued opens it, naming the user the link
// signs in and when it expires, and LinkRedeemed closes it. Both are decided by the command loop with
// the stream's expected version, so of two redemptions racing on two replicas exactly one is
// appended: the loser re-decides, sees LinkRedeemed and is refused. A link is therefore used once
// across every replica that shares the log, and it cannot be redeemed after ExpiresAt.
//
// It is pure: Decide and Evolve see only the state and the command, which carries every time, id and
// hash.
package signindom
