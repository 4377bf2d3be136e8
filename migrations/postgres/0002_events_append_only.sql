-- The event log is append-only (tamper resistance, not tamper evidence): a row, once inserted, is
-- never changed or removed by anyone who can reach the table, the owner included. UPDATE and DELETE
-- are refused row by row, TRUNCATE (which fires no row trigger) per statement. Crypto-shredding
-- deletes data keys in the vault's tables, never events, so nothing in Workbench needs either.
-- Only dropping the trigger (the table owner or a superuser, on purpose) lifts it; see
-- `workbench migrate --create-role` for a server role that cannot do that either.
CREATE FUNCTION events_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events is append-only: % refused', TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'the event log is never updated, deleted from or truncated';
END;
$$;

CREATE TRIGGER events_append_only_row
    BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_refuse_change();

CREATE TRIGGER events_append_only_truncate
    BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_refuse_change();
