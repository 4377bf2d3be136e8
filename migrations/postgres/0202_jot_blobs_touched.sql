-- When a jot blob was last stored or stored again (internal/jots.PostgresBlobs): the garbage collector
-- deletes a blob no live jot references only when it has not been touched for a grace period, so a
-- deploy that stores a body again while a sweep runs keeps it.
ALTER TABLE jot_blobs ADD COLUMN touched_at TIMESTAMPTZ NOT NULL DEFAULT now();
CREATE INDEX jot_blobs_touched_at ON jot_blobs (touched_at);
