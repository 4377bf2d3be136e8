// Package domain is the write side of Workbench: events, aggregates, their Decide and Evolve functions,
// and the application error type. It is pure: it imports the standard library, github.com/google/uuid and
// its own subpackages, and nothing else of this repository. Every change of state that matters is a
// domain event appended to the log; read models are derived from it elsewhere.
package domain
