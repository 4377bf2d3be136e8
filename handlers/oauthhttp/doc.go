// Package oauth is the workbench's OAuth 2.1 authorization server for MCP clients (MCP authorization
// specification, revision 2025-11-25), composed from ory/fosite over a storage that reads the oauth
// projection and records every write through app/oauthclients (registration, grants, code exchange and
// rotation, revocation). It serves:
//
//   - GET /.well-known/oauth-authorization-server: RFC 8414 metadata;
//   - GET /.well-known/oauth-protected-resource and /.well-known/oauth-protected-resource/mcp: RFC 9728
//     metadata of the /mcp resource; /.well-known/oauth-protected-resource/mcp/ts/{name}: that of a
//     toolset's endpoint, a resource of its own;
//   - POST /oauth/register: RFC 7591 dynamic registration of public clients, rate-limited per address;
//   - GET and POST /oauth/authorize: the consent page and the user's decision (authorization code with
//     PKCE S256 only, exact redirect URIs, the RFC 8707 resource one of this server's: /mcp or a
//     toolset's /mcp/ts/{name}, at the canonical URL or a loopback alias, see below);
//   - POST /oauth/token: code exchange and refresh with rotation and reuse detection;
//   - POST /oauth/revoke: RFC 7009 revocation;
//   - GET /api/mcp-clients and DELETE /api/mcp-clients/{client_id}: the portal's list of the clients
//     holding live refresh tokens for the signed-in user, and their revocation.
//
// Access tokens are ES256-signed JWTs (RFC 9068 shape: typ at+jwt, client_id, the grant id as gid)
// whose audience is the resource the client asked for (the canonical /mcp URL, a toolset's endpoint,
// or an alias's); VerifyAccessToken checks one for handlers/authn, which takes a toolset's token at that
// toolset's endpoint alone. Codes and
// refresh tokens are fosite's HMAC tokens; the log holds only their signatures. Every key is derived
// from the one signing key Main hands over, with HKDF (internal/signed.DeriveKey).
//
// Revocation, by cause (RFC 9700 section 4.14; spec "What the portal is for"): RFC 7009 revocation,
// reuse of a spent code and reuse of a spent refresh token end the grant's refresh-token family and its
// access tokens at once (VerifyAccessToken consults the grant). The portal's revocation of a client
// ends its refresh tokens and outstanding codes; access tokens already issued lapse at their TTL, and
// the API says so.
//
// Decisions on what real clients do:
//
//   - state is optional and opaque. OAuth 2.1 (section 4.1.1) makes it recommended only, and the
//     TypeScript MCP SDK sends none unless its provider makes one. PKCE S256, which stays mandatory,
//     binds the code to the client instance that started the flow, which is the CSRF protection state
//     gave. fosite (v0.49) refuses a state under 8 characters as its very last check and cannot be
//     configured to accept none, so authorizeRequest ignores exactly that refusal (ErrInvalidState);
//     a state that is sent comes back unchanged, one that is not sent does not come back empty.
//   - Every redirect back to the client, code or error, carries iss, the issuer (RFC 9207); the
//     metadata says authorization_response_iss_parameter_supported. fosite adds neither, so the
//     redirect's Location is completed as it is written (authorizeRedirect).
//   - localhost and 127.0.0.1 are one server to a user. When the public URL is loopback, localhost,
//     127.0.0.1 and [::1] on its port are aliases (internal/httpserve.Loopback): the metadata served on
//     an alias names that alias as the resource and the issuer (clients check the resource against the
//     URL they were given, RFC 9728 section 3.3); its authorization endpoint sends the browser to the
//     same request on the public host, where the portal session cookie is, naming the alias's /mcp as
//     the resource; iss and the tokens' iss and audience follow that resource. A token for one alias
//     is accepted on every alias of the port (one listener), never for another port or host.
//   - A valid access token without the mcp scope is 403 insufficient_scope with scope="mcp" in the
//     challenge (RFC 6750 section 3.1), not 401: the client should ask for the scope, not drop its
//     tokens. A revoked or expired token is 401 whatever its scope.
//
// Storage failures are never a bad credential. fosite turns any error of GetClient into invalid_client
// and hides the cause from errors.Is, and a client told invalid_client throws its registration away.
// So the storage tells a database failure (anything but not-found or a refusal of the domain) from an
// answer, notes it in the request's context (unavailable.go), and the token and revocation endpoints
// answer 503 {"error":"temporarily_unavailable"} with Retry-After when one was noted, whatever fosite
// made of it. The authorization endpoint shows a 503 page before the redirect URI is known, and
// redirects with error=temporarily_unavailable (RFC 6749 section 4.1.2.1) after. An access token whose
// grant cannot be read is CodeUnavailable, which /mcp answers 503 with Retry-After. One failure is
// not reported: a recorded code exchange or rotation returns its tokens even when the read model
// cannot be seen to apply it (the decision and its reason are in app/oauthclients).
//
// Client names are shown to the user as the app's claim of who it is. Registration refuses names with
// control or bidirectional-formatting characters (domain/oauthdom), and the consent page shows any such
// character of a name recorded before as a visible escape, so a name cannot reorder what the page says.
package oauthhttp
