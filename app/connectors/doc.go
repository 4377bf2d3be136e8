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
// OAuth (oauth.go): the dynamic strategy discovers the endpoint's protected-resource metadata (RFC
// 9728) and its authorization server's metadata (RFC 8414), refusing documents whose resource or
// issuer do not match; registers a public client (RFC 7591) stored on the connector as an event; and
// signs in with the authorization code, PKCE S256 and prompt=consent, the state signed and bound to
// the user and the login. Tokens are refreshed before any call or listing when they expire within a
// minute; a 401 gets one refresh and one retry; invalid_grant disconnects the login.
//
// The strategy seam (strategy.go) decides where a sign-in's client and endpoints come from: dynamic as
// above; configured with a provider, the integration's manifest endpoints and its client (platform
// key integration:<slug>, else <PLUGIN>_CLIENT_ID); configured without one, the connector's platform
// key connector:<slug> and discovery, never registering; github_app (githubapp.go), the GitHub App
// install flow, the installation checked against the installing user's, and installation access
// tokens cached per replica until a minute before expiry. A client's secret is read at call time and
// never stored on a login. A client nobody has set up is ErrOAuthNotSetUp (setup_state not_set_up).
//
// The catalog (catalog.go, admin.go, orgservers.go): the instance admin's switch, copy overrides
// (null clears a key), per-tool overrides (description and schema taken at the next listing, the
// default deciding rule 1 of what starts Off) and export in the connector.json format; servers added
// by hand, by the admin (platform rows) or by an organisation's owners and admins (its own, visible to
// it alone: another organisation's id is not found at Connect, at a switch and at its routes). Slugs
// and tool prefixes are claimed on the catalog stream before a row is added (domain/connectordom's
// slugs.go), so racing adds cannot collide. Deleting a server removes its logins and every switch
// that names it, each an event. A switched-off connector refuses Connect and offers no tools. Whether
// a connector is set up reads the platform keys it needs (PlatformKeys; nil: none is set).
//
// Platform logins (platformlogins.go): a connector whose manifest names auth.instance gets one login
// owned by the platform while its platform key is set (PlatformKeys), connected with an empty sealed
// payload, its default switches at the platform scope; SyncPlatformLogins keeps it so (at boot, after a
// key write, and from RunPlatformSync when CatalogChanged or PlatformKeysChanged see an event). A call on
// it reads the key at call time, is redacted as [REDACTED:platform_<slug>_<field>], and is counted per
// organisation, connector and UTC month on its own stream (domain/platformcall), refused past
// Options.MonthlyCap before it reaches the provider. An organisation's own login is more specific and wins.
//
// Credentials are sealed with the vault under the subject "mcp-login:<login id>" and are opened only
// to call the endpoint or the adapter; their values are redacted from every tool result and error, in
// the forms internal/redact lists (case, URL, JSON, hex, base64, split by whitespace, Basic pairs).
//
// State hooks (state.go): at a run start (an MCP session's initialize) RunContext runs the state hooks
// of the connectors the agent has On, in parallel under one budget (Options.StateBudget, 5 s), each
// value measured (32,000 serialised bytes), redacted against its login's credentials, or replaced by
// {"unavailable": reason}; core keys (connector.ReservedStateKeys) are dropped. Instructions renders the
// state's intros and values and the offered connectors' prompt.guidance for the session's instructions.
//
// The connector registry (registry.go): Options.Registry (CONNECTOR_REGISTRY_DIR) lists connectors an
// instance admin installs as registry rows (a connector.installed event with source registry, verified,
// publisher and version), refused when the slug is taken (409), unknown (404) or does not load (422).
// Options.RegistryURL (CONNECTOR_REGISTRY_URL, registryurl.go) is the same registry as one JSON index,
// {"connectors": [<connector.json object>, ...], "verified": ["<slug>", ...]}, fetched over HTTPS
// through the address-checked transport (redirects checked again, MaxRegistryIndexBytes,
// RegistryIndexTimeout, application/json only) and kept RegistryIndexTTL; its entries pass the same
// checks, and an index that cannot be fetched or read is CodeUpstream (502) naming the registry's host.
package connectors
