// Package compliance holds the auditor role's use cases (issue 15, item 4): an instance admin grants
// and revokes the role (identity.auditor_granted / identity.auditor_revoked in the user's
// "auditor-<uuid>" stream), and every read an auditor makes of the compliance API is authorised and
// recorded here (identity.audit_read, one stream per read) before a single record is served, so a read
// is never answered without its own audit record being durable.
//
// Instance admins are Service.Admins, which the server fills from internal/config's Config.Admins: the
// emails of WORKBENCH_ADMINS (comma separated), or, when that is unset, the user of WORKBENCH_ADMIN_EMAIL
// (the startup sign-in link's user); the erasure API checks the same list. Admins are not auditors by
// being admins: an admin who wants to read the log grants the role to themselves, which the log shows.
package compliance
