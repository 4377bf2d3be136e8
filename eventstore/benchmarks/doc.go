// Package benchmarks measures the event store backends against raw inserts on the same database.
// BenchmarkAppend (`make bench`) prints one summary line per backend and appender count; see
// append_test.go. The package holds only tests and benchmarks.
package benchmarks
