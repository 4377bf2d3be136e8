-- The event log (owned by eventstore/postgres). Readers order by (xid, position) and read only below
-- the oldest running transaction, so a row that commits late is never skipped.
CREATE TABLE events (
    position       BIGSERIAL PRIMARY KEY,
    xid            xid8   NOT NULL DEFAULT pg_current_xact_id(),
    id             UUID   NOT NULL UNIQUE,
    stream         TEXT   NOT NULL,
    version        BIGINT NOT NULL,
    type           TEXT   NOT NULL,
    schema_version INT    NOT NULL,
    data           BYTEA  NOT NULL,
    metadata       BYTEA  NOT NULL,
    UNIQUE (stream, version)
);
CREATE INDEX events_xid_position ON events (xid, position);
