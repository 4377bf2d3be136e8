-- The SIEM feed's checkpoint (app/auditsink): per sink, the log position of the last event whose
-- records the sink acknowledged, written after each acknowledged batch. On a restart delivery resumes
-- after it, so every record is delivered at least once; a batch in flight at a crash is sent again
-- (receivers deduplicate by record event_id). position is COMMIT/PREPARE as eventstore.Position prints
-- it; delivered counts the records acknowledged; updated_at is UTC text (internal/dbtime).
CREATE TABLE audit_sink_checkpoints (
    sink       TEXT NOT NULL PRIMARY KEY,
    position   TEXT COLLATE "C" NOT NULL,
    delivered  BIGINT NOT NULL DEFAULT 0,
    updated_at TEXT NOT NULL
);
