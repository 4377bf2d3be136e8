// Package memory is an in-process eventstore.Store: the log lives in slices behind a mutex and is gone
// when the process ends. It is for tests and tools that need a real Store without a database, and it
// passes the same storetest suite as the durable backends. Positions are one gap-free sequence starting
// at 1, held in both Commit and Prepare, as on SQLite.
package memory
