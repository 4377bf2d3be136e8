// Package connectorcatalog is the catalog of remote MCP connectors (spec connectors.md, The catalog
// in Admin): installing the loaded connector folders at boot (install.go), the instance admin's edits
// of a row, servers added by hand or by an organisation, slug claims, the registries an admin installs
// from, and the server views.
//
// It owns two streams, each written here alone through one eventstore.Aggregate value (service.go):
// a connector's stream (connectordom.StreamName, connectorAggregate: its installs, its OAuth clients and
// the catalog's edits of its row, one decider, connectordom.Decide) and the catalog stream of slug and
// prefix claims (connectordom.CatalogStream, claimsAggregate, connectordom.DecideClaims). A dynamic
// OAuth client is registered by the logins use case through Client and RegisterClient, so the
// connector's stream keeps one writer.
//
// Design decisions. It imports connectorcore and no other use case: the logins and tools use cases
// sit above it. Removing a server removes its logins and the switches that name it, streams this
// package does not own: it asks Dependents (connectortools.Service, wired by connectors.New) to do so
// before it removes the row and frees the claim, each step its own event and each repeatable, so a
// failed removal is retried whole. FillCopy fills a hand-added row's blank copy from the server's
// initialize reply once a login of it connects (the logins call it).
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
// The connector registry (registry.go): Options.Registry (CONNECTOR_REGISTRY_DIR) lists connectors an
// instance admin installs as registry rows (a connector.installed event with source registry, verified,
// publisher and version), refused when the slug is taken (409), unknown (404) or does not load (422).
// Options.RegistryURL (CONNECTOR_REGISTRY_URL, registryurl.go) is the same registry as one JSON index,
// {"connectors": [<connector.json object>, ...], "verified": ["<slug>", ...]}, fetched over HTTPS
// through the address-checked transport (redirects checked again, MaxRegistryIndexBytes,
// RegistryIndexTimeout, application/json only) and kept RegistryIndexTTL; its entries pass the same
// checks, and an index that cannot be fetched or read is CodeUpstream (502) naming the registry's host.
package connectorcatalog
