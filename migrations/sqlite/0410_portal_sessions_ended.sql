-- Read model of the portal sessions ended early (projections/portalsessions), checked on every
-- request that carries a portal session cookie (internal/websession).
CREATE TABLE portal_ended_sessions (
    session_id TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX portal_ended_sessions_expiry ON portal_ended_sessions (expires_at);

-- "Sign out everywhere": every session of user_id issued at or before ended_before is over.
CREATE TABLE portal_sessions_cut (
    user_id      TEXT PRIMARY KEY,
    ended_before TEXT NOT NULL
);
