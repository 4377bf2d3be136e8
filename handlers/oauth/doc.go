// Package oauth is the workbench's OAuth 2.1 authorization server for MCP clients (MCP authorization
// specification, revision 2025-11-25), composed from ory/fosite over a storage backed by the event log
// and the oauth projection. It serves:
//
//   - GET /.well-known/oauth-authorization-server: RFC 8414 metadata;
//   - GET /.well-known/oauth-protected-resource and /.well-known/oauth-protected-resource/mcp: RFC 9728
//     metadata of the /mcp resource;
//   - POST /oauth/register: RFC 7591 dynamic registration of public clients, rate-limited per address;
//   - GET and POST /oauth/authorize: the consent page and the user's decision (authorization code with
//     PKCE S256 only, exact redirect URIs, the RFC 8707 resource fixed to the canonical /mcp URL);
//   - POST /oauth/token: code exchange and refresh with rotation and reuse detection;
//   - POST /oauth/revoke: RFC 7009 revocation;
//   - GET /api/mcp-clients and DELETE /api/mcp-clients/{client_id}: the portal's list of the clients
//     holding live refresh tokens for the signed-in user, and their revocation.
//
// Access tokens are ES256-signed JWTs (RFC 9068 shape: typ at+jwt, client_id, the grant id as gid)
// whose audience is the canonical /mcp URL; VerifyAccessToken checks one for internal/authn. Codes and
// refresh tokens are fosite's HMAC tokens; the log holds only their signatures. Every key is derived
// from the one signing key Main hands over.
//
// Revocation, by cause (RFC 9700 section 4.14; spec "What the portal is for"): RFC 7009 revocation,
// reuse of a spent code and reuse of a spent refresh token end the grant's refresh-token family and its
// access tokens at once (VerifyAccessToken consults the grant). The portal's revocation of a client
// ends its refresh tokens and outstanding codes; access tokens already issued lapse at their TTL, and
// the API says so.
package oauth
