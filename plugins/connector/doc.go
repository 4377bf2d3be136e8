// Package connector is the manifest of a connector (spec connectors.md, The manifest): the
// connector.json of a folder plugins/<provider>/connectors/<slug>/ (plugins/shipped joins them),
// checked against an embedded JSON Schema and against its folder's name at load; the adapter interface a connector with Go code implements;
// tool prefixes and the sanitising of listed tool names; the five rules of what starts Off; and the
// subset of JSON Schema a login's settings document is checked against.
//
// It imports nothing of the application: app/connectors reads the loaded catalog, and the pool
// (app/connectors/mcpclient) reaches the endpoints.
//
// A connector's adapter may have a state hook (Stater, state.go); its manifest then names state.key and
// state.intro, and Parse refuses a key without a hook and a hook without a key. prompt.guidance is the
// paragraph a session's instructions add when one of the connector's tools is offered.
package connector
