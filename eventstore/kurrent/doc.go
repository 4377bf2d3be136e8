// Package kurrent is the eventstore.Store backend on KurrentDB (formerly EventStoreDB), through
// github.com/EventStore/EventStore-Client-Go/v4. It owns the translation between Workbench's contract
// and KurrentDB's:
//
//   - expected versions: Any and NoStream map to the same conditions; Exact(v) expects revision v-1,
//     since our stream versions start at 1 and KurrentDB's revisions at 0; a refused append becomes an
//     *eventstore.ConflictError with the stream's actual version;
//   - envelopes: the event id, type and JSON data map one to one; the domain metadata and the schema
//     version travel together as the event's user metadata (one JSON object); Version is revision+1;
//   - positions: our Position is KurrentDB's $all position, Commit and Prepare as they are;
//   - the global order is $all, without KurrentDB's system events (stream or type starting with "$")
//     and, with Options.StreamPrefix, without other installations' streams;
//   - idempotent appends are KurrentDB's own de-duplication by event id, which is narrower than the
//     eventstore.Store contract: the server recognises a retry only at the same stream position (with
//     Any, only on a best-effort basis), and does not keep event ids unique across the log. An id
//     reused in another stream, or in the same stream at a version the expected version allows, is
//     written as a new event, not refused with eventstore.ErrEventIDReused; a reuse the expected
//     version does not allow is refused as a conflict. The storetest suite runs with
//     Harness.PerStreamEventIDs for this backend. Callers that need unique ids across the log make
//     them so (every event gets a fresh UUIDv7), which is what the command loop does.
//
// KurrentDB cannot run on Workbench's development machines or in CI, so the mapping is written as pure
// functions (mapping.go) tested without a server, and the shared storetest suite runs against a real
// server only when WORKBENCH_TEST_KURRENTDB_URL names one.
package kurrent
