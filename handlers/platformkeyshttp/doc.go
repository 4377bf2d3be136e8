// Package platformkeys serves Admin, Platform keys and the caps usage (spec connectors.md, Platform
// logins) to the portal's signed-in instance admins (WORKBENCH_ADMINS):
//
//	GET    /api/admin/platform-keys          every key name the box knows, its declared fields, whether it
//	                                         is set, by whom and when (never a value)
//	PUT    /api/admin/platform-keys/{name}   {"fields": {"api_key": "..."}} sets or replaces a key
//	DELETE /api/admin/platform-keys/{name}   removes a key (204)
//	GET    /api/admin/connector-calls        calls on platform logins per organisation, connector and
//	                                         UTC month, beside each connector's monthly cap
//
// Anyone else is 403; a name of no known form, a plugin or connector that does not exist, or a field
// the key does not declare is 422 naming it. Writes need a same-origin request.
package platformkeyshttp
