// Package storetest is the one behaviour suite every eventstore.Store backend runs (memory, SQLite,
// PostgreSQL, KurrentDB). A backend's test calls Run with a Harness that opens fresh stores; the suite
// owns the contract checks (round trips, expected versions, bad input, concurrency and global order,
// subscriptions, idempotent appends, ReadAll paging) so that every backend is held to the same rules.
//
// The suite never mocks a database: a Harness opens the real thing.
package storetest
