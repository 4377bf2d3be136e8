-- Rate limits and budgets on agents' tool calls (projections/budgetsrm): per scope and tool ('*' for
-- every tool), calls per minute and per UTC day (0: none). The calls they count are event streams.
CREATE TABLE budgets (
    scope      TEXT    NOT NULL,
    scope_id   TEXT    NOT NULL,
    tool       TEXT    NOT NULL,
    per_minute INTEGER NOT NULL,
    per_day    INTEGER NOT NULL,
    updated_at TEXT    NOT NULL,
    PRIMARY KEY (scope, scope_id, tool)
);
