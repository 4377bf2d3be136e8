-- The event log (owned by eventstore/postgres).
--
-- Global order is (xid, position): xid is the id of the transaction that wrote the row
-- (pg_current_xact_id(), a 64-bit xid8 that never wraps), position a sequence value taken inside it.
-- Sequence values are handed out when a row is inserted, not when it commits, so ordering by position
-- alone lets a reader pass a row whose transaction commits late (the "bigserial gap"). Readers instead
-- order by (xid, position) and read only rows whose xid is below the oldest transaction still running
-- (pg_snapshot_xmin(pg_current_snapshot())): every such transaction has ended, so nothing can appear
-- behind a reader later.
CREATE TABLE events (
    position       BIGSERIAL PRIMARY KEY,
    xid            xid8   NOT NULL DEFAULT pg_current_xact_id(),
    id             UUID   NOT NULL UNIQUE,
    stream         TEXT   NOT NULL,
    version        BIGINT NOT NULL CHECK (version >= 1),
    type           TEXT   NOT NULL,
    schema_version INT    NOT NULL,
    -- data holds the event body exactly as appended (JSON, byte for byte).
    data           BYTEA  NOT NULL,
    -- metadata is written by the store itself (domain.Metadata), so it can be JSONB and queried.
    metadata       JSONB  NOT NULL,
    -- The backstop of optimistic concurrency: whatever happens to the locks, a stream never holds two
    -- events at one version.
    UNIQUE (stream, version)
);
CREATE INDEX events_xid_position ON events (xid, position);
