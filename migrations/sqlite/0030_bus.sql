-- Where each bus relay has published the event log up to (owned by internal/bus). One row per relay.
CREATE TABLE bus_relay_checkpoints (
    name             TEXT    PRIMARY KEY,
    commit_position  INTEGER NOT NULL,
    prepare_position INTEGER NOT NULL,
    updated_at       TEXT    NOT NULL
);
