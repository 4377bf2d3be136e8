// Package connectorcore is the plumbing every connector use case shares (app/connectors and its
// use-case packages): the Options a connectors.Service is wired with and the interfaces they name
// (Sealer, Projections, Scopes, Pool, PlatformKeys, IntegrationLookup), and Core, the one value each
// use case's Service embeds: the checked options, the catalog read model, the shipped folders by slug,
// the manifests read once per digest and overrides, the metadata of an append and the wait for the
// read models after it (with the hooks that run after each write: the tool-call path's cache clears).
//
// It also holds what more than one use case reads and none owns: a login's sealed credentials (Creds,
// sealed under the subject "mcp-login:<login id>" and opened only to call the endpoint or the
// adapter), the redaction of their values from every result and error (Redactor, Result for a
// remote's content blocks), the endpoint a login's session goes to, and the scopes (PersonalScopes,
// OrganizationScopes, ChainOf, ManagedLogin, VisibleAt) that decide who sees a catalog row and who
// manages a login.
//
// It writes no stream and declares no eventstore.Aggregate: each stream is written by the one
// use-case package that owns its aggregate value.
package connectorcore
