// Package crashtest proves that the durable event store backends keep their promise across a crash:
// a child process (the test binary run again, switched by an environment variable) appends in a loop
// from several goroutines to several streams and reports each append only after it returned; the test
// kills it with SIGKILL, reopens the store and checks that every acknowledged event is there, that
// streams run 1..n without gaps, that positions are unique and increasing in ReadAll order (gap-free
// on SQLite), and that no append is half-written. It runs for SQLite always and for PostgreSQL when
// WORKBENCH_TEST_POSTGRES_URL is set.
//
// A killed process is not a power cut: the operating system still writes what the process had handed
// it. The test shows that acknowledgements come after the commit and that recovery leaves a consistent
// log; the fsync half of durability is the backends' settings (no synchronous=OFF), not shown here.
//
// The package has no code of its own beyond its tests.
package crashtest
