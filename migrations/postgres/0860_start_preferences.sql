-- What tools that start Off by their rule are for an organisation's agents (projections/connectorsrm):
-- 'off' (every organisation before it could choose) or 'ask'.
CREATE TABLE tool_start_preferences (
    scope              TEXT NOT NULL,
    scope_id           TEXT NOT NULL,
    mutating_starts_as TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    PRIMARY KEY (scope, scope_id)
);
