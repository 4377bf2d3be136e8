-- Where each projection (read model) has got to in the event log (owned by projections/). A projection's
-- checkpoint is written in the same transaction as the read-model change it covers, so a batch of
-- events is either applied and recorded together or not at all.
--
-- Positions are eventstore.Position{Commit, Prepare}: two unsigned 64-bit numbers. Neither SQLite nor
-- PostgreSQL has an unsigned 64-bit integer, so each is stored as exactly 20 decimal digits, zero-padded
-- ("00000000000000000042"): as text these sort and compare exactly as the numbers do, over the whole
-- uint64 range, on both dialects, and they stay readable. COLLATE "C" makes the comparison bytewise
-- whatever the database's default collation.
--
-- error and the error_* columns are NULL while the projection is healthy. When it stops on an event it
-- cannot apply, they hold the error and the identity of that event, which is the next one it will try.
CREATE TABLE projection_checkpoints (
    name              TEXT NOT NULL PRIMARY KEY,
    commit_pos        TEXT COLLATE "C" NOT NULL CHECK (length(commit_pos) = 20),
    prepare_pos       TEXT COLLATE "C" NOT NULL CHECK (length(prepare_pos) = 20),
    updated_at        TIMESTAMPTZ NOT NULL,
    error             TEXT,
    error_event_id    UUID,
    error_event_type  TEXT,
    error_commit_pos  TEXT COLLATE "C",
    error_prepare_pos TEXT COLLATE "C",
    error_at          TIMESTAMPTZ
);
