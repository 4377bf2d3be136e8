// Package portalapi is the portal's JSON API for the signed-in person and their account: who is
// signed in (GET /api/me), signing in and out (the SSO routes /api/auth/{provider}/login and
// /callback, the one-time link /auth/link/{token}, POST /api/auth/logout, GET /api/auth/providers),
// the workbench API key (GET, POST and DELETE /api/apikey, POST /api/apikey/rotate and /reveal), and
// the integration catalog as the person sees it (GET /api/integrations, each logo at
// GET /api/integrations/{name}/logo, and POST /api/integrations/{name}/connect to start an OAuth
// connection from the portal).
//
// The connect-flow routes of handlers/api live beside these on the same router.
//
// Every JSON route but the providers list and the logos needs a signed-in portal session
// (internal/websession), and every state-changing one a same-origin request (websession's
// SameOrigin rule: an Origin header naming SERVER_PUBLIC_URL's origin, or the X-Workbench-CSRF
// header); errors are {"error": code, "message": text}. The three browser navigations (login,
// callback, link) answer with redirects, and with a small HTML page when something is wrong.
//
// Signing out ends the session in the log before the answer (internal/websession), so the cookie is
// refused on every replica afterwards; when the end cannot be recorded the answer is 503 and the
// cookie is kept, so nobody believes a session is over that is not. Sign out everywhere ends every
// session of the user; it also takes the user's API key as a Bearer token (for a browser out of reach). Revealing the API key needs a fresh session (websession.FreshFor); an older
// one gets 403 REAUTH_REQUIRED, which the portal turns into "sign in again to reveal the key".
package portalapi
