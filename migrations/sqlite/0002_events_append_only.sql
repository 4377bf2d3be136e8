-- The event log is append-only (tamper resistance, not tamper evidence): UPDATE and DELETE on events
-- abort. SQLite has no TRUNCATE; its "DELETE FROM events" shortcut is disabled while a DELETE trigger
-- exists, so that aborts too. Crypto-shredding deletes data keys in the vault's tables, never events.
-- Whoever can write the database file can still drop the triggers: SQLite has no users, so this stops
-- mistakes and careless tools, not the file's owner.
CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events is append-only: UPDATE refused');
END;

CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events is append-only: DELETE refused');
END;
