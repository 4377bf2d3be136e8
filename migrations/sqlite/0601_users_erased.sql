-- identity read model (projections/identity): when the user was erased (identity.user_erased). An
-- erased user's row stays, under the pseudonym, for what refers to it; the readers that authenticate
-- (by id, email or API key) no longer find it, so sessions and OAuth tokens issued before the erasure
-- stop working with it.
ALTER TABLE users ADD COLUMN erased_at TEXT;
