-- Read model of the jots projection (projections/jots): the live jots and their file manifests. File
-- bodies are not here: on SQLite they live in the filesystem blob store (internal/jots).
CREATE TABLE jots (
    name          TEXT PRIMARY KEY,
    creator       TEXT NOT NULL,
    access        TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    cors          INTEGER NOT NULL DEFAULT 0,
    generation    INTEGER NOT NULL,
    version       INTEGER NOT NULL,
    deployed_at   TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX jots_creator ON jots (creator);

CREATE TABLE jot_files (
    name         TEXT NOT NULL,
    path         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    PRIMARY KEY (name, path)
);
