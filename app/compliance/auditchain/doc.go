// Package auditchain makes the event log tamper-evident: a hash chain over every event in global order,
// and periodic Ed25519 seals of the chain head.
//
// # The chain
//
// The Sealer follows the log the way every reader does (Store.ReadAll by global position; on
// PostgreSQL that is (xid, position) read below the oldest running transaction, so transactions that
// commit out of sequence order are chained in the order readers see them, once and for good). For each
// event it stores one row of audit_chain (migration 0600): seq (1, 2, 3, ... with no gap), the event's
// position and id, and
//
//	hash(n) = SHA-256(Encode(hash(n-1), event n)), hash(0) = 32 zero bytes (Genesis)
//
// Encode (hash.go) is a canonical, length-prefixed encoding of the position, id, stream, version, type,
// schema version, data (byte for byte as appended) and every metadata field (actor, on-behalf-of, MCP
// client, correlation and causation ids, time in RFC 3339 UTC with nanoseconds). Metadata is encoded
// field by field rather than as stored JSON, so SQLite and PostgreSQL (jsonb) give the same hash. The
// sealer writes in transactions of its own, never in the append transaction, so appends do not wait for
// it.
//
// # Seals
//
// Every Every events (default 1000), and whenever something new was chained and the last seal is older
// than Interval (default 10s), the sealer signs (seq, position, head hash, time, key id) with an
// Ed25519 key (Seal.Message gives the exact bytes). The private key is created on first use, sealed by
// the vault under the subject "audit:seal-key" and kept in audit_seal_keys with its public key.
// LoadKey derives the public key from the private one, so a public key swapped in the table is noticed.
// With several replicas on PostgreSQL, one sealer runs at a time under an advisory lock; a second
// would fail harmlessly on the rows' primary keys.
//
// # Verifying
//
// Verify reads the events from the store (a freshly opened one in `workbench audit verify`, so no
// cache stands between it and the events table), recomputes every hash and compares it with the stored
// chain, checks each seal's signature against the public key and its head against the chain, and names
// the first failure with its position: an edited event (data, metadata, type, ...), a deleted one, one
// inserted where nothing was chained, one moved to another place in the order, or a log that ends
// before the last seal (truncated). An attacker who edits events and recomputes the chain rows is caught
// by the first seal after the edit, which no longer matches; one who also deletes seals is caught only by
// a seal kept outside the system (`workbench audit seal-head`, anchored elsewhere).
//
// # The window not yet sealed
//
// Events newer than the chain head (not yet read by the sealer: at most about one poll, 500ms, behind
// on a healthy server; on PostgreSQL also anything behind a transaction still running) are reported by
// Verify as Unchained; events chained after the last seal (at most Every events or Interval) as
// Unsealed. Both windows are evidence only once sealed: whoever can write the database could rewrite
// them unnoticed until then. `workbench audit seal-head --now` seals the head at once.
package auditchain
