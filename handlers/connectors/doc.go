// Package connectors serves the /api/mcp/* routes of the connectors spec (connectors.md, Reference,
// HTTP) that Connectors I covers: the catalog and its logos, token connect, a login's metadata, tools
// and switches, its settings and lookups, test calls, and removal. Every route needs a signed-in
// portal user; state-changing routes also need a same-origin request. The OAuth callback and the
// admin and organisation catalogs are Connectors II.
package connectors
