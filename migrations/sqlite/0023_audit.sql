-- Read model of the audit projection (projections/audit): every audited record that names a user,
-- served per user, newest first, by /api/audit. The records are those `workbench audit replay`
-- streams from the log (internal/audit), stored whole as JSON in record; the other columns are there
-- to select and order them.
--
-- Positions are stored as in projection_checkpoints (0020): exactly 20 decimal digits, zero-padded, so
-- that as text they order as the numbers do on both dialects. at is UTC text in the fixed-width layout
-- of internal/dbtime.
CREATE TABLE audit_records (
    event_id    TEXT NOT NULL PRIMARY KEY,
    user_id     TEXT NOT NULL,
    commit_pos  TEXT NOT NULL CHECK (length(commit_pos) = 20),
    prepare_pos TEXT NOT NULL CHECK (length(prepare_pos) = 20),
    at          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    integration TEXT NOT NULL DEFAULT '',
    record      TEXT NOT NULL
);
CREATE INDEX audit_records_user_position ON audit_records (user_id, commit_pos, prepare_pos);

-- The email of each user, from identity.user_created, as the projection meets it in the log: the
-- projection resolves emails from the log itself, exactly as the replay does, and not from another
-- read model whose progress it cannot see.
CREATE TABLE audit_users (
    user_id TEXT NOT NULL PRIMARY KEY,
    email   TEXT NOT NULL
);
