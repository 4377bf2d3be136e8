// Package oauth owns the facts of the workbench's OAuth 2.1 authorization server for MCP clients, as
// events: dynamically registered clients (RFC 7591; one stream per client, ClientStreamName) and grants
// (one stream per authorization request, GrantStreamName): the authorization code a user consented to,
// its single exchange, the access and refresh tokens issued under it, refresh-token rotation, and every
// revocation.
//
// A grant stream is one refresh-token family: fosite keeps the request id of the authorization across
// refreshes, so every token the grant ever issued lives in one stream and one decision can revoke them
// all. The rules (RFC 9700 sections 2.2.2 and 4.14, OAuth 2.1 section 4.1.3):
//
//   - a code is exchanged at most once; exchanging it again is refused with ErrCodeUsed, and the
//     caller revokes what the first exchange issued;
//   - a refresh token is rotated at most once; presenting a spent one is refused with
//     ErrRefreshTokenSpent, and the caller revokes the family;
//   - once a grant's refresh tokens are revoked it issues none again; once its access is revoked it
//     issues no access token again.
//
// Token values never reach the log: only their signatures (the HMAC part of a code or refresh token,
// the signature part of a JWT access token), from which the token cannot be rebuilt.
//
// The package is pure: Decide and Evolve see only the state and the command, which carries every
// time and id. Codec: eventstore.NewJSONCodec(oauth.Events()...).
package oauthdom
