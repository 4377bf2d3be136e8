// Package connectors is the use case of remote MCP connectors (spec connectors.md): installing the
// shipped connector folders into the catalog at boot, token connect with onExisting, login settings
// with lookups, listing a login's tools through the pool (every listing an event with its digest and
// diff), the switches at every scope, testing a tool, and the tools an agent sees and runs through
// the meta-tools (Service implements executions.ToolSource).
//
// Scopes: a login is owned by an organization, a guild or an agent (connect refuses the platform).
// Which scopes an agent belongs to, and which scopes a user may manage, come from Scopes:
// OrganizationScopes reads them from the organisations read model; PersonalScopes, a stand-in that
// makes every user one organization and one agent with the user's own id, serves where there is none.
//
// Credentials are sealed with the vault under the subject "mcp-login:<login id>" and are opened only
// to call the endpoint or the adapter; their values are redacted from every tool result and error.
package connectors
