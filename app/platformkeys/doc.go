// Package platformkeys is the use case of the platform keys an instance admin sets under Admin,
// Platform keys (spec connectors.md, Platform logins; A connector's own key or client): set, replace
// and remove a key by name, list what is set, and read a key's fields at call time
// (Service implements app/connectors.PlatformKeys).
//
// Names: "integration:<plugin slug>" holds the fields the integration declares (its API key fields,
// or client_id and client_secret for an OAuth integration); "connector:<connector slug>" holds the
// connector's own auth.fields (token) or client_id and client_secret (OAuth); "github_app" holds
// app_id, app_slug (optional), client_id, client_secret and private_key. A name of another form, a
// plugin or connector that does not exist, a field that is not declared, a required field missing or
// a blank value is CodeUnprocessable naming it. Only instance admins (WORKBENCH_ADMINS) read the list
// or write.
//
// Every write is an event on the key's stream (domain/platformkey). The values are sealed with the
// vault under a fresh subject per write ("platform-key:<name>:<id>"), so a replacement or a removal
// shreds the previous values wherever they were copied; the events and the read model hold the field
// names and the sealed blob, never a value in clear. Nothing returns a value but PlatformKey, which the
// tool-call path calls.
//
// PlatformKey reads the read model (projections/platform) and caches what it opened. The cache is
// emptied by Forget, wired as the platform_keys projection's AfterApply: every replica's runner
// applies every key event, so a key written on one replica is read afresh on all of them once their
// read model holds it. AfterWrite (the platform login sync) runs after every write on the replica
// that made it.
package platformkeys
