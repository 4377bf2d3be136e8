package crashtest

// backends lists the durable backends the crash test runs against.
func backends() []backend {
	return []backend{sqliteBackend(), postgresBackend()}
}
