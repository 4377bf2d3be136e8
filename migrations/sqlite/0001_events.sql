-- The event log (owned by eventstore/sqlite). SQLite has one writer at a time, and the store gives
-- each new event position = MAX(position) + 1 inside its write transaction, so positions are gap-free
-- and commit in order: a reader that follows position never passes an event that commits later.
-- data and metadata are JSON kept as TEXT, byte for byte as appended, so json_extract works on them.
CREATE TABLE events (
    position       INTEGER PRIMARY KEY CHECK (position > 0),
    id             TEXT    NOT NULL UNIQUE CHECK (length(id) = 36),
    stream         TEXT    NOT NULL CHECK (stream <> ''),
    version        INTEGER NOT NULL CHECK (version > 0),
    type           TEXT    NOT NULL CHECK (type <> ''),
    schema_version INTEGER NOT NULL,
    data           TEXT    NOT NULL,
    metadata       TEXT    NOT NULL,
    UNIQUE (stream, version)
) STRICT;
