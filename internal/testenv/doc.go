// Package testenv is the test environment every package's tests share: what a test runs on, opened
// fresh for that test and closed when it ends. Only tests import it (the repository's import rule test
// refuses it in production code).
//
// What it gives a test:
//
//   - Open: the storage of one node, on SQLite or on PostgreSQL as the test asks (Open(t, SQLite),
//     Open(t, Postgres)): the migrated database, its event store, a vault and a standing Clock. Each
//     PostgreSQL node gets a database of its own, so tests that share no node may run in parallel.
//   - OpenSQLite: a SQLite file in the test's temporary directory with every migration applied, and the
//     event store over it.
//   - PostgresURL: an empty database of the test's own on the shared server WORKBENCH_TEST_POSTGRES_URL
//     names, dropped when the test ends; the test is skipped when the variable is unset.
//   - NewCluster: a private PostgreSQL server of the test's own (initdb on a free loopback port), for a
//     test that must stop or crash the database; the shared server is never stopped.
//   - Vault: a vault under a new master key; Settle: a wait until a store's log shows every committed
//     event (on PostgreSQL a reader sees an event only once no transaction below it is open).
//   - Clock: the one fake clock, standing at an instant or running on the wall clock at an offset, safe
//     for concurrent use; production code that takes a func() time.Time gets Clock.Now.
//   - ChromiumBin and LaunchChromium: the machine's Chromium, named explicitly so go-rod never downloads
//     a browser, headless and off the network; without it a test is skipped, and fails under CI=true.
//
// The package lives under internal/ and follows the import rule for internal's tests: it may import
// internal/, eventstore/, domain/ and migrations, never projections/ or app/. A projection runner, a
// use case or a handler is therefore built by the tests of the layer that owns it, on top of what this
// package opens.
package testenv
