-- The compliance API (handlers/audit, /api/admin/audit) pages every user's records in log order; the
-- index of 0023 leads with user_id, so this one serves the reads that name no user.
CREATE INDEX audit_records_position ON audit_records (commit_pos, prepare_pos);
