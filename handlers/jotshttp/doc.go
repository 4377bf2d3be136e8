// Package jots is the jots host: it serves every live jot at /j/<name>/ and takes uploads at
// /jots/upload/<name>/<token> (spec, workbench-concepts.md: "Jot"; the use cases are app/jots).
//
// # The sandbox
//
// Every response under /j/ carries
//
//	Content-Security-Policy: sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads
//	X-Content-Type-Options: nosniff
//	Referrer-Policy: no-referrer
//
// The CSP sandbox directive (CSP Level 3, section 6.3.2; HTML "sandboxing flag set") without
// allow-same-origin gives the jot's document an opaque origin. Its scripts run, but document.cookie and
// localStorage throw, and every fetch it makes, even to /api or /mcp on the same host, is a
// cross-origin request from origin "null": the app's answers carry no Access-Control-Allow-Origin for
// it, so the script cannot read them, and the app's SameSite=Lax session cookie is not sent on those
// requests at all. Nothing here ever sets an app cookie: the only cookie this package sets is a jot's
// own password cookie, scoped to Path=/j/<name>/. nosniff stops a browser from running a file as
// anything but the type it is served as; types come from a fixed table (app/jots.ContentType).
//
// The sandbox is the defence whatever the origin, but a separate origin is better still: set
// JOTS_ORIGIN (for example https://jots.example.com, a different site from SERVER_PUBLIC_URL) and
// jots are linked and served there; requests for /j/ on any other host are redirected to it, so the
// app's cookies are never even sent with a jot request.
//
// # Serving
//
// GET and HEAD of /j/<name>/<path> answer the file with its content type, a strong ETag (the sha256 of
// the body), Cache-Control: no-cache (private, no-cache for a password-gated jot) so a redeploy shows
// at once and revalidation is a cheap 304 (If-None-Match, RFC 9110 section 13.1.2), and byte ranges.
// A path ending in / (the root included) serves its index.html; /j/<name> redirects to /j/<name>/.
// Paths that climb ("..") or are otherwise invalid answer 404.
//
// cors: true (public jots only) adds Access-Control-Allow-Origin: * (never with credentials), so the
// jot's own opaque-origin scripts can fetch its data files; preflights are answered for GET and HEAD.
//
// # Password gate
//
// A gated jot answers 401 with a small form until the visitor posts the right password (POST to any
// path of the jot), checked against its bcrypt hash. Guesses are limited before the jot is even looked
// up: Options.GuessesPerAddress a minute per client address over every jot, Options.GuessesPerJot a
// minute per jot over every address (429 with Retry-After); a guess that finds every bcrypt slot busy
// is answered 503 with Retry-After (app/jots explains the bounds). The host then sets a cookie scoped to
// Path=/j/<name>/ (HttpOnly, SameSite=Lax, Secure on TLS) and redirects to
// /j/<name>/~gate/<token>/<path>. Cookie and token are the same value: an internal/signed token under the
// server's key, naming the jot, expiring (12 hours by default), and bound to the current password
// hash, so a new password logs every visitor out.
//
// Why a token in the path: the jot's page is sandboxed into an opaque origin, so browsers treat its own
// subresource requests (app.js, style.css) as cross-site and send no cookie with them, whatever its
// SameSite (proved in Chromium by TestPasswordGateInChromium). Top-level navigations do carry the
// cookie, so a navigation with a valid cookie is redirected under a fresh token, and the page's
// relative URLs resolve under it. Root-relative URLs (/j/<name>/app.js) bypass the token and get the
// form: gated jots must use relative URLs. Responses send Referrer-Policy: no-referrer so the token does
// not leak through links; a token URL shared by hand opens the jot until it expires.
//
// # Upload
//
// PUT or POST the gzip tarball as the raw request body to the URL deploy_jot returned
// (curl -T site.tgz URL). The body is capped; the answer is JSON: the deployment, or an error whose
// message names the refused entry and the rule it broke.
package jotshttp
