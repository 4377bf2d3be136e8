-- Toolsets (projections/toolsetsrm): each scope's curated tool lists, served at /mcp/ts/{name}; the
-- latest version of each, its entries as JSON.
CREATE TABLE toolsets (
    scope       TEXT    NOT NULL,
    scope_id    TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    description TEXT    NOT NULL DEFAULT '',
    entries     TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (scope, scope_id, name)
);
