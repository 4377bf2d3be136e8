-- Several accounts per user and integration (projections/connectionsrm): the connections read model is
-- keyed by user, integration and account label ('default' for every connection made before labels
-- existed), and an attempt names the account it connects. The rows are rebuilt from the log: the
-- projection's checkpoint is removed, so it replays every connection event into the new tables.
DROP TABLE connections;
DROP TABLE connection_attempts;
CREATE TABLE connections (
    user_id           TEXT   NOT NULL,
    integration       TEXT   NOT NULL,
    account           TEXT   NOT NULL DEFAULT 'default',
    status            TEXT   NOT NULL,
    auth_mode         TEXT   NOT NULL DEFAULT '',
    credential        TEXT,
    expires_at        TEXT,
    account_hint      TEXT   NOT NULL DEFAULT '',
    generation        BIGINT NOT NULL DEFAULT 0,
    attempt_id        TEXT   NOT NULL DEFAULT '',
    stream_version    BIGINT NOT NULL,
    updated_at        TEXT   NOT NULL,
    state             TEXT   NOT NULL,
    PRIMARY KEY (user_id, integration, account)
);
CREATE TABLE connection_attempts (
    attempt_id  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    integration TEXT NOT NULL,
    account     TEXT NOT NULL DEFAULT 'default',
    auth_mode   TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    started_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    ended_at    TEXT
);
CREATE INDEX connection_attempts_ended ON connection_attempts (ended_at);
DELETE FROM projection_checkpoints WHERE name = 'connections';
