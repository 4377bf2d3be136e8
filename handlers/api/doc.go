// Package api is the portal's JSON API for connections: redeeming a claim link
// (POST /api/connect/redeem), the OAuth callback every plugin registers with its provider
// (GET /api/auth/plugin/{integration}/callback), storing an API key
// (POST /api/integrations/{name}/apikey) and disconnecting (DELETE /api/integrations/{name}); those two
// answer 204 No Content on success.
//
// Everything but the callback needs a signed-in portal session (internal/websession) and, for its
// state-changing methods, a same-origin request (an Origin header naming SERVER_PUBLIC_URL's origin,
// or the X-Workbench-CSRF header). The callback is a top-level navigation from the provider: it
// carries the SameSite=Lax session cookie, and its state is bound to the session's user.
//
// Claim-link redemption is limited per client address (Deps.RedeemLimit a minute, DefaultRedeemLimit
// by default, counted before the session is looked at), answered 429 with Retry-After past it, like
// client registration at /oauth/register.
package api
