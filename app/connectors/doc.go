// Package connectors is the use case of remote MCP connectors (spec connectors.md): Service composes
// the use cases, each in a package of its own over one shared connectorcore.Core:
//
//   - connectorcatalog: the catalog of connectors and its registries (installs from folders and the
//     registry, admin edits and overrides, organisation servers, slug claims, server views); writes the
//     connector streams and the catalog claims stream;
//   - connectorlogins: logins and their OAuth strategies (connect, sign-ins, refresh, listings,
//     settings, platform logins and their counts, agent logins, login views); writes the login streams
//     and the platform-call streams;
//   - connectortools: tools and switches (the tools an agent sees and runs, the tool-call cache,
//     content, resources, state hooks, connector and plugin switches, login details); writes the switch
//     streams.
//
// Dependencies point one way, tools → logins → catalog → connectorcore; where a lower use case must
// change a stream a higher one owns (a removed login's switches, a deleted server's logins and
// switches) it calls a narrow interface that New wires to the tools use case.
//
// Service embeds the three, so their methods are its own and every caller keeps calling svc.Method();
// the types and constants callers name (Options, Chain, View, ConnectRequest, CatalogEntry, ...) stay
// here as aliases, so the split moved no caller. New use-case code belongs in its package, not here.
package connectors
