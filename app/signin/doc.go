// Package signin signs people in to the portal. There are no passwords (spec, What the portal is
// for): a person signs in through an OpenID Connect provider (Google, Keycloak), or, when none is
// configured, with the one-time link `workbench serve` prints at start.
//
// # SSO
//
// Begin starts the authorization code flow (OpenID Connect Core 1.0 section 3.1) with PKCE S256
// (RFC 7636), a fresh state and a fresh nonce, all sealed (AES-256-GCM) in a short-lived HttpOnly
// cookie scoped to the provider's callback path, so the sign-in is bound to the browser that started
// it and any replica can finish it. Complete checks that cookie and the state, exchanges the code
// with the verifier, verifies the ID token with github.com/coreos/go-oidc (the provider's published
// keys, issuer, audience, expiry) and its nonce, and requires email_verified; the user is then found
// or created by address (app/accounts.EnsureUser). Every configured provider is trusted for
// every address: a person signed in by Keycloak as ann@example.com is the same workbench user as one
// signed in by Google with that address. SIGNIN_ALLOWED_DOMAINS narrows who may sign in at all.
// Discovery is lazy: `serve` starts even when a provider is unreachable.
//
// # The one-time link
//
// IssueStartupLink issues <SERVER_PUBLIC_URL>/auth/link/<token> for the WORKBENCH_ADMIN_EMAIL user
// (default admin@workbench.localhost, created when missing). The token is 32 random bytes; the log
// holds only its SHA-256, in domain/signindom's link stream, with the user and the expiry (15 minutes).
// RedeemLink appends the redemption with the stream's expected version, so the link works once
// across replicas. Redeeming completes the sign-in: it gives the user their personal organisation
// when missing (Config.Organizations), as the SSO callback does, whoever issued the link (the
// `workbench signin-link` command issues links without the organisations service); invitations of
// the address stay pending for the user to answer in the portal. Its route (handlers/portalhttp) lets one client address attempt at most
// DefaultLinkLimit redemptions a minute and answers 429 with Retry-After past that: a token cannot be
// guessed, but each attempt loads a stream, so a flood is cut off before it reaches the store.
//
// Issuing sessions (the cookie) is handlers/websession's; the HTTP routes are handlers/portalhttp's.
package signin
