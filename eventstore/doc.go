// Package eventstore defines the event log every other part of Workbench is built on: the Store
// interface, envelopes, positions, expected versions and the typed errors, plus the pieces written once
// for every backend (the generic command loop, the group-commit batcher, the catch-up-then-live
// subscription). Backends live in subpackages named after what they wrap (memory, sqlite, postgres,
// kurrent) and all pass the one suite in storetest.
//
// The package knows envelopes, never domain types: events arrive already encoded as JSON.
package eventstore
