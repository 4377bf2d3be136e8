-- Several accounts per connector login owner (projections/connectorsrm): a login row names its account
-- label ('default' for every login made before labels existed), and an owner holds one login per
-- connector and account. SQLite cannot drop a table constraint, so the table is copied into a new one;
-- every row there is a default account.
CREATE TABLE mcp_connections_accounts (
    id             TEXT   PRIMARY KEY,
    server_id      TEXT   NOT NULL,
    owner_scope    TEXT   NOT NULL,
    owner_id       TEXT   NOT NULL,
    account        TEXT   NOT NULL DEFAULT 'default',
    status         TEXT   NOT NULL,
    account_hint   TEXT   NOT NULL DEFAULT '',
    needs_settings INTEGER NOT NULL DEFAULT 0,
    listed_at      TEXT,
    created_at     TEXT   NOT NULL,
    updated_at     TEXT   NOT NULL,
    rotated_at     TEXT,
    stream_version BIGINT NOT NULL,
    state          TEXT   NOT NULL,
    UNIQUE (server_id, owner_scope, owner_id, account)
);
INSERT INTO mcp_connections_accounts (id, server_id, owner_scope, owner_id, status, account_hint, needs_settings, listed_at,
    created_at, updated_at, rotated_at, stream_version, state)
SELECT id, server_id, owner_scope, owner_id, status, account_hint, needs_settings, listed_at,
    created_at, updated_at, rotated_at, stream_version, state FROM mcp_connections;
DROP TABLE mcp_connections;
ALTER TABLE mcp_connections_accounts RENAME TO mcp_connections;
CREATE INDEX mcp_connections_owner ON mcp_connections (owner_scope, owner_id);
CREATE INDEX mcp_connections_server ON mcp_connections (server_id);
