// Package connectors serves the /api/mcp/* routes of the connectors spec (connectors.md, Reference,
// HTTP) built so far: the catalog and its logos, token connect and OAuth connect (which answers
// authorization_url and authorization_host, or 422 with setup_state unsupported or not_set_up), the
// OAuth callback (GET /api/mcp/oauth/callback, which redirects to the connectors page; a GitHub App
// installation comes back there too, with installation_id), a login's metadata, tools and
// switches, its settings and lookups, test calls, and removal. Every route needs a signed-in portal
// user; state-changing routes also need a same-origin request. The admin and organisation catalogs
// are still to come.
package connectors
