// Package connectors serves the /api/mcp/* routes of the connectors spec (connectors.md, Reference,
// HTTP) built so far: the catalog and its logos, token connect and OAuth connect (which answers
// authorization_url and authorization_host, or 422 with setup_state unsupported or not_set_up), the
// OAuth callback (GET /api/mcp/oauth/callback, which redirects to the connectors page; a GitHub App
// installation comes back there too, with installation_id), a login's metadata, tools and
// switches, its settings and lookups, test calls, and removal. Every route needs a signed-in portal
// user; state-changing routes also need a same-origin request.
//
// The catalog in Admin (admin.go): /api/admin/mcp/servers and its switch, overrides, per-tool
// overrides, export and add by hand, for instance admins alone (Deps.Admins, matched by the signed-in
// user's email through Deps.Users; anyone else is a 403). An organisation's own servers
// (orgservers.go): /api/orgs/{org}/mcp/servers, written by the organisation's owners and admins (a
// member is a 403, anyone else a 404, as is another organisation's server id).
//
// The connector registry (registry.go, MountRegistry): GET /api/admin/mcp/registry and
// POST /api/admin/mcp/registry/{slug}/install, for instance admins only (Config.Admins; anyone else
// signed in is a 403). With a registry index URL (CONNECTOR_REGISTRY_URL), an index that cannot be
// fetched or is not an index is a 502 naming the registry's host.
package connectorshttp
