-- Read models of the connections projection (projections/connections): one row per user and
-- integration, and one per connect attempt (what wait_for_connection and the sweep read).
CREATE TABLE connections (
    user_id           TEXT   NOT NULL,
    integration       TEXT   NOT NULL,
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
    PRIMARY KEY (user_id, integration)
);

CREATE TABLE connection_attempts (
    attempt_id  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL,
    integration TEXT NOT NULL,
    auth_mode   TEXT NOT NULL,
    outcome     TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    started_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    ended_at    TEXT
);
CREATE INDEX connection_attempts_ended ON connection_attempts (ended_at);
