// Package projectiontest holds Ledger, a small projection over test events that the projections
// package's tests and benchmark (and the tests of anything that drives a Runner, such as the CLI) use
// to check the runner: it keeps balances per account and counts how many times each event was
// applied, so a duplicate or a skipped event shows in its tables. It is for tests only; its tables are
// created by CreateTables, not by the migrations.
package projectiontest
