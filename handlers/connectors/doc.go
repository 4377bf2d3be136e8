// Package connectors serves the /api/mcp/* routes of the connectors spec (connectors.md, Reference,
// HTTP) built so far: the catalog and its logos, token connect and OAuth connect (which answers
// authorization_url and authorization_host, or 422 with setup_state unsupported), the OAuth callback
// (GET /api/mcp/oauth/callback, which redirects to the connectors page), a login's metadata, tools and
// switches, its settings and lookups, test calls, and removal. Every route needs a signed-in portal
// user; state-changing routes also need a same-origin request. The admin and organisation catalogs
// are still to come.
//
// The connector registry (registry.go, MountRegistry): GET /api/admin/mcp/registry and
// POST /api/admin/mcp/registry/{slug}/install, for instance admins only (Config.Admins; anyone else
// signed in is a 403).
package connectors
