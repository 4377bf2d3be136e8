// Package connectorlogins is the logins of remote MCP connectors and their sign-ins (spec
// connectors.md, Logins and OAuth): token connect with onExisting (connect.go), the OAuth sign-ins and
// their strategies (oauth.go, strategy.go, githubapp.go), token refresh before a call, login settings
// and lookups (settings.go), listing a login's tools (listing.go: every listing an event with its
// digest and diff, and the tools' model names, toolnames.go), platform logins and their monthly counts
// (platformlogins.go), the removal of a deleted agent's logins (agentlogins.go), and the login views.
//
// It owns two streams, each written here alone through one eventstore.Aggregate value (service.go):
// a login's stream (login.StreamName, loginAggregate, login.Decide: connect, sign-in, refresh,
// listing, settings, default account, disconnect, removal) and an organisation's monthly count of
// calls on a platform login (domain/platformcall, callAggregate).
//
// Design decisions. It imports connectorcore and connectorcatalog (for the catalog's rows, a hand-added
// row's copy, and the connector's OAuth clients, which stay on the connector's stream) and nothing
// above it. A removed login's default switches are cleared on its owner's switch stream, which the
// tools use case owns: through Switches (connectortools.Service, wired by connectors.New). Listing is
// here, not with the tools, because a listing is a login event.
//
// Scopes (connectorcore): a login is owned by an organization, a guild or an agent (connect refuses the platform).
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
package connectorlogins
