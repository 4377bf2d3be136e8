// Package handlers is Workbench's HTTP surface: the chi router, the middleware every request passes
// through, the health, readiness and metrics endpoints, and the one table that maps application error
// codes to HTTP statuses. Each product surface (mcp, oauth, api, proxy, jots) gets a subpackage that
// mounts onto the router built here.
package handlers
