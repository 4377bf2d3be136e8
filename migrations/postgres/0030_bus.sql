-- Where each bus relay has published the event log up to (owned by internal/bus). One row per relay;
-- replicas sharing this database share the row, so the relay that takes over resumes from it.
CREATE TABLE bus_relay_checkpoints (
    name             TEXT   PRIMARY KEY,
    commit_position  BIGINT NOT NULL,
    prepare_position BIGINT NOT NULL,
    updated_at       TEXT   NOT NULL
);
