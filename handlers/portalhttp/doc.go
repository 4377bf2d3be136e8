// Package portal is the portal's JSON API, everything under /api/ that the single-page app calls,
// behind one middleware:
//
//   - the signed-in person: who is signed in (GET /api/me), signing in and out (the SSO routes
//     /api/auth/{provider}/login and /callback, the one-time link /auth/link/{token},
//     POST /api/auth/logout and /api/auth/logout-everywhere, GET /api/auth/providers);
//   - the workbench API key (GET, POST and DELETE /api/apikey, POST /api/apikey/rotate and /reveal);
//   - the integration catalog as the person sees it (GET /api/integrations, each logo at
//     GET /api/integrations/{name}/logo, and POST /api/integrations/{name}/connect to start an OAuth
//     connection from the portal);
//   - connections: redeeming a claim link (POST /api/connect/redeem), the OAuth callback every plugin
//     registers with its provider (GET /api/auth/plugin/{integration}/callback), storing an API key
//     (POST /api/integrations/{name}/apikey) and disconnecting (DELETE /api/integrations/{name}); those
//     two answer 204 No Content on success.
//
// Every JSON route but the providers list, the logos and the plugin callback goes through portal:
// it needs a signed-in portal session (handlers/websession; a session store that cannot answer is
// 503, never a sign-out), and every state-changing one a same-origin request (websession's
// SameOrigin rule: an Origin header naming SERVER_PUBLIC_URL's origin, or the X-Workbench-CSRF
// header, else 403 CROSS_ORIGIN); errors are {"error": code, "message": text}. The three sign-in
// navigations (login, callback, link) answer with redirects, and with a small HTML page when
// something is wrong. The plugin callback is a top-level navigation from the provider: it carries the
// SameSite=Lax session cookie, its state is bound to the session's user, and it always redirects to
// the portal (/?connected=<name> or /?connect_error=<reason>&integration=<name>).
//
// Signing out ends the session in the log before the answer (handlers/websession), so the cookie is
// refused on every replica afterwards; when the end cannot be recorded the answer is 503 and the
// cookie is kept, so nobody believes a session is over that is not. Sign out everywhere ends every
// session of the user; it also takes the user's API key as a Bearer token (for a browser out of
// reach). Revealing the API key needs a fresh session (websession.FreshFor); an older one gets 403
// REAUTH_REQUIRED, which the portal turns into "sign in again to reveal the key".
//
// Sign-in link and claim-link redemptions are limited per client address (Deps.LinkLimit and
// Deps.RedeemLimit a minute, 30 by default, counted before the session is looked at), answered 429
// with Retry-After past it, like client registration at /oauth/register.
//
// The routes are adapters: the use cases are app/accounts (the user, the API key), app/signin and
// the connections service; this package parses, authenticates, calls them and formats the answer.
package portalhttp
