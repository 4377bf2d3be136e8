// Package oauthclients holds the use cases of the workbench's OAuth 2.1 authorization server that
// write the log: dynamic client registration (RFC 7591), the grants a user consents to, the exchange
// of a code and the rotation of a refresh token, and the revocation of a grant's token family. Every
// write is a command of domain/oauthdom run through the command loop on one stream (a client, or a grant:
// one refresh-token family); the service then waits for the oauth read model to apply it, so a read
// right after a write (the token request right after the consent) sees it.
//
// handlers/oauthhttp composes fosite over a storage that reads the oauth projection and calls this
// package for every write. fosite decides the protocol; this package records what it decided and owns
// the rules that are not fosite's:
//
//   - A grant's commands of one fosite transaction are committed as one append (CommitGrant), so a code
//     exchange records the spent code with the tokens it issued, and a rotation the spent refresh token
//     with its successor, atomically and under the grant's optimistic concurrency check. Of two
//     concurrent uses of one code or refresh token exactly one commits; the other lost a race with a
//     use of the same credential, which is a reuse (RFC 6749 section 4.1.2, RFC 9700 section 4.14.2),
//     and the grant's refresh tokens and access tokens are revoked at once.
//   - A recorded exchange returns its tokens. Once a code exchange or a rotation is appended, a failed
//     or slow (over 5 s) wait for the read model is logged and the write reported as done, because a
//     503 would have the client retry with the spent code or refresh token, which reuse detection
//     takes for theft and answers by revoking the grant. The read model catches up when the database
//     answers again.
//   - A registration, by contrast, waits for the read model without a bound and reports a failed wait
//     (ErrNotYetReadable): a client told to retry merely registers again.
//   - The portal's revocation of a client (RevokeClient) ends the refresh tokens and the outstanding code
//     of every grant the user gave it, one event each with reason "user"; access tokens already issued
//     are self-contained and lapse at their TTL.
//
// Errors are returned as the command loop gave them. IsRefusal tells an answer of the domain or of the
// store's concurrency check from a failure to reach the database, which callers answer 503 (never a
// bad credential: see handlers/oauthhttp).
package oauthclients
