-- Read models of the identity projection (projections/identity). Times are UTC text in a fixed-width
-- layout, so they sort and compare the same way on every dialect.
CREATE TABLE users (
    user_id      TEXT PRIMARY KEY,
    email        TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL DEFAULT '',
    created_at   TEXT NOT NULL
);

CREATE TABLE api_keys (
    key_id     TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    hash       TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    sealed     TEXT,
    minted_at  TEXT NOT NULL,
    revoked_at TEXT
);
CREATE INDEX api_keys_user ON api_keys (user_id);
