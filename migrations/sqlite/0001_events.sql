-- The event log (owned by eventstore/sqlite). One writer at a time, so position is gap-free.
CREATE TABLE events (
    position       INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    stream         TEXT    NOT NULL,
    version        INTEGER NOT NULL,
    type           TEXT    NOT NULL,
    schema_version INTEGER NOT NULL,
    data           BLOB    NOT NULL,
    metadata       BLOB    NOT NULL,
    UNIQUE (stream, version)
);
