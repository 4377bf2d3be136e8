-- Read model of the jots projection (projections/jots): the live jots and their file manifests.
CREATE TABLE jots (
    name          TEXT PRIMARY KEY,
    creator       TEXT NOT NULL,
    access        TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    cors          INTEGER NOT NULL DEFAULT 0,
    generation    BIGINT NOT NULL,
    version       BIGINT NOT NULL,
    deployed_at   TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);
CREATE INDEX jots_creator ON jots (creator);

CREATE TABLE jot_files (
    name         TEXT NOT NULL,
    path         TEXT NOT NULL,
    size         BIGINT NOT NULL,
    sha256       TEXT NOT NULL,
    content_type TEXT NOT NULL,
    PRIMARY KEY (name, path)
);

-- The content-addressed blob store of jot file bodies when DATABASE_URL is PostgreSQL, so every replica
-- serves the same jots (internal/jots.PostgresBlobs). Keyed by the body's sha256; written once, never
-- updated. Not a read model: a rebuild leaves it alone.
CREATE TABLE jot_blobs (
    sha256     TEXT PRIMARY KEY,
    size       BIGINT NOT NULL,
    body       BYTEA NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
