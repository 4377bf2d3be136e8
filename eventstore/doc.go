// Package eventstore defines the event log every other part of Workbench is built on: the Store
// interface, envelopes, positions, expected versions and the typed errors, plus the pieces written once
// for every backend (the generic command loop, the group-commit batcher, the catch-up-then-live
// subscription). Backends live in subpackages named after what they wrap (memory, sqlite, postgres,
// kurrent) and all pass the one suite in storetest.
//
// The package knows envelopes, never domain types: events arrive already encoded as JSON.
//
// Event ids, and the ids that name a new stream per fact (an execution), are time-ordered UUIDv7:
// every backend indexes event ids, and a random id puts each insert on a random page of that index
// (several page writes per event once the log outgrows the cache), where a time-ordered one appends at
// its end. They are unique, not secret: an id that must not be guessed (a session, a token, a claim,
// an API key) stays a random UUIDv4 and is minted where it is used.
package eventstore
