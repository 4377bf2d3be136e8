// Package portal owns the portal: the single-page app people use to sign in, manage their workbench
// API key, connect and disconnect integrations, see and revoke the MCP clients holding access to
// their account, and read their own activity (spec: workbench-how-it-works.md, "What the portal is
// for"). The app is plain ES modules and CSS under static/, embedded into the binary with go:embed;
// there is no build step and nothing is fetched from another origin.
//
// Handler serves the app. It is the router's NotFound fallback, registered after every API route,
// and it only answers genuine client routes with index.html: a GET or HEAD whose path is not under
// /api/, /mcp, /oauth/, /.well-known/, /j/, /c/ or /auth/ and whose last segment has no file
// extension (the claim-link route /connect/<token> is a client route even though its token holds a
// dot). Everything else is a 404: JSON under /api/, plain text elsewhere.
//
// Assets are served under /assets/<version>/, where version is a digest of every embedded file, so
// they are cached for a year as immutable and a new build changes every URL at once (the modules
// import each other by relative path, so one version for the tree keeps them consistent). index.html
// is never cached. Every response carries a strict Content-Security-Policy (no inline script, no
// other origin, no framing, Trusted Types enforced because the app never writes HTML as a string),
// X-Content-Type-Options: nosniff and Referrer-Policy: no-referrer (a claim link's token is in the
// page URL and must not reach the provider in a Referer header).
package portal
