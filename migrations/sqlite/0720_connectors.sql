-- Read models of connectors (projections/connectors): the catalog, one row per installed connector;
-- logins (mcp_connections), one per connector and owner, with the login's folded state; the stored
-- tools of each login; every listing with its digest and diff (drift); and the tool switches at each
-- scope, from which the effective set an agent sees is read.
CREATE TABLE connectors (
    id           TEXT    PRIMARY KEY,
    slug         TEXT    NOT NULL,
    tool_prefix  TEXT    NOT NULL UNIQUE,
    owner_org_id TEXT,
    manifest     TEXT    NOT NULL,
    digest       TEXT    NOT NULL,
    source       TEXT    NOT NULL,
    verified     INTEGER NOT NULL DEFAULT 0,
    publisher    TEXT    NOT NULL DEFAULT '',
    version      TEXT    NOT NULL DEFAULT '',
    enabled      INTEGER NOT NULL DEFAULT 1,
    oauth_client TEXT,
    overrides    TEXT,
    updated_at   TEXT    NOT NULL
);

CREATE TABLE mcp_connections (
    id             TEXT   PRIMARY KEY,
    server_id      TEXT   NOT NULL,
    owner_scope    TEXT   NOT NULL,
    owner_id       TEXT   NOT NULL,
    status         TEXT   NOT NULL,
    account_hint   TEXT   NOT NULL DEFAULT '',
    needs_settings INTEGER NOT NULL DEFAULT 0,
    listed_at      TEXT,
    created_at     TEXT   NOT NULL,
    updated_at     TEXT   NOT NULL,
    rotated_at     TEXT,
    stream_version BIGINT NOT NULL,
    state          TEXT   NOT NULL,
    UNIQUE (server_id, owner_scope, owner_id)
);
CREATE INDEX mcp_connections_owner ON mcp_connections (owner_scope, owner_id);

CREATE TABLE mcp_tools (
    login_id         TEXT    NOT NULL,
    server_id        TEXT    NOT NULL,
    name             TEXT    NOT NULL,
    remote_name      TEXT    NOT NULL,
    description      TEXT    NOT NULL,
    description_sha  TEXT    NOT NULL,
    input_schema     TEXT    NOT NULL,
    read_only_hint   INTEGER,
    destructive_hint INTEGER,
    PRIMARY KEY (login_id, name)
);

CREATE TABLE mcp_tool_listings (
    login_id        TEXT    NOT NULL,
    stream_version  BIGINT  NOT NULL,
    server_id       TEXT    NOT NULL,
    digest          TEXT    NOT NULL,
    previous_digest TEXT    NOT NULL DEFAULT '',
    diff            TEXT    NOT NULL,
    tool_count      INTEGER NOT NULL,
    listed_at       TEXT    NOT NULL,
    PRIMARY KEY (login_id, stream_version)
);

CREATE TABLE mcp_tool_switches (
    scope           TEXT    NOT NULL,
    scope_id        TEXT    NOT NULL,
    server_id       TEXT    NOT NULL,
    tool            TEXT    NOT NULL,
    is_on           INTEGER NOT NULL,
    rule            TEXT    NOT NULL DEFAULT '',
    description_sha TEXT    NOT NULL DEFAULT '',
    updated_at      TEXT    NOT NULL,
    PRIMARY KEY (scope, scope_id, server_id, tool)
);
