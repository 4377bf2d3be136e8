// Package bus carries committed events from the replica that wrote them to every replica that runs,
// over watermill: an in-process GoChannel by default, NATS JetStream or PostgreSQL (watermill-sql) when
// BUS_URL names one.
//
// The bus is not the store. The event log stays the only record of what happened; the bus carries
// notifications of what the log already holds (wake projections, complete wait_for_connection on any
// replica, invalidate caches) and later the audit export stream. Delivery is at least once, so
// consumers must be idempotent; Dedup drops repeats by event id.
//
// What the package owns:
//
//   - Bus: Open by URL, Publish envelopes to a topic, Subscribe a handler to a topic. Every
//     subscription receives every message (fan-out): each gets its own NATS consumer or SQL consumer
//     group, never a share of a competing group.
//   - Relay: follows the event log from a persisted checkpoint and publishes every committed event
//     to topic "workbench.events". It reads the log, never the append path, so nothing is published
//     before it commits and nothing committed is missed, even what was appended while no relay ran.
//     With several replicas on one PostgreSQL, an advisory lock lets one relay publish at a time.
//     Given a Select (the server passes Bus.Wants), it publishes only the events some subscription
//     asks for; the checkpoint moves past the others all the same.
//     A stop lets the batch on its way finish before the last checkpoint is saved, so a clean restart
//     publishes nothing twice; a crash may, and consumers drop the repeats.
//   - BUS_NATS_PREFIX (Options.NATSPrefix): on NATS, the topic's "workbench" namespace is replaced by
//     the deployment's prefix, in the subject and the stream name, so deployments sharing one NATS
//     server stay apart. The default is "workbench", which keeps the names used before the prefix
//     existed; a deployment that changes it starts on a new, empty stream (the relay's checkpoint is in
//     the database, and the bus only carries notifications the log already holds).
//   - The checkpoint table bus_relay_checkpoints (migrations/*/0030_bus.sql).
package bus
