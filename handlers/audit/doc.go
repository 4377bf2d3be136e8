// Package audit serves GET /api/audit: the signed-in user's own audit records, newest first, a page
// at a time, from the audit read model (projections/audit, which also owns the Record type and the
// replay of the log behind `workbench audit replay`). It is the adapter only: it parses the paging
// parameters, asks a Reader, and formats the page; how an event becomes a record is the read side's.
package audit
