// Package platformkey is the write side of the platform keys an instance admin sets under Admin,
// Platform keys (spec connectors.md, Platform logins; A connector's own key or client). A key has a
// name of one of three forms:
//
//   - "integration:<plugin slug>": an integration's OAuth client or API key fields;
//   - "connector:<connector slug>": a connector's own key (its auth.fields, or an OAuth client);
//   - "github_app": the GitHub App.
//
// Each name is its own stream, platformkey-<name>. Set records the field names, who set them and
// when, and the values sealed by the vault (the domain never sees them in clear); Remove records
// that the key is gone. Which fields a name may hold is the application's check (it knows the
// catalog); the domain checks the name's form and that the command is complete.
package platformkey
