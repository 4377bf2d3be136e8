-- Read model of the jots projection (projections/jots): the latest claim of every name, live or not,
-- so the per-user jot limit can count names claimed but not deployed. A claim counts while
-- expires_at (dbtime text) is in the future and the name is not live. Rows of claims that expired
-- before a later claim was recorded are deleted as that claim is applied, so the table stays small and
-- a rebuild gives the same rows.
CREATE TABLE jot_claims (
    name       TEXT PRIMARY KEY,
    creator    TEXT NOT NULL,
    expires_at TEXT NOT NULL
);
CREATE INDEX jot_claims_creator ON jot_claims (creator);
CREATE INDEX jot_claims_expires_at ON jot_claims (expires_at);
