-- Read models of the OAuth authorization server (projections/oauth): registered clients, grants (one
-- per authorization request: its code and its refresh-token family) and the tokens issued under them,
-- by signature. Times are UTC text in the fixed-width layout of internal/dbtime; lists are JSON arrays.
CREATE TABLE oauth_clients (
    client_id      TEXT PRIMARY KEY,
    client_name    TEXT NOT NULL,
    redirect_uris  TEXT NOT NULL,
    grant_types    TEXT NOT NULL,
    response_types TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    registered_at  TEXT NOT NULL
);

CREATE TABLE oauth_grants (
    request_id            TEXT PRIMARY KEY,
    client_id             TEXT NOT NULL,
    user_id               TEXT NOT NULL,
    code_signature        TEXT NOT NULL UNIQUE,
    scopes                TEXT NOT NULL,
    audience              TEXT NOT NULL,
    redirect_uri          TEXT NOT NULL,
    code_challenge        TEXT NOT NULL,
    code_challenge_method TEXT NOT NULL,
    requested_at          TEXT NOT NULL,
    code_expires_at       TEXT NOT NULL,
    issued_at             TEXT NOT NULL,
    code_exchanged_at     TEXT,
    code_revoked_at       TEXT,
    refresh_revoked_at    TEXT,
    access_revoked_at     TEXT,
    revoke_reason         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX oauth_grants_user_client ON oauth_grants (user_id, client_id);

CREATE TABLE oauth_refresh_tokens (
    signature  TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    issued_at  TEXT NOT NULL,
    expires_at TEXT,
    rotated_at TEXT
);
CREATE INDEX oauth_refresh_tokens_request ON oauth_refresh_tokens (request_id);

CREATE TABLE oauth_access_tokens (
    signature  TEXT PRIMARY KEY,
    request_id TEXT NOT NULL,
    issued_at  TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX oauth_access_tokens_request ON oauth_access_tokens (request_id);
