-- Read model of the MCP sessions ended early (projections/mcpsessions): what a replica loads at start.
CREATE TABLE mcp_ended_sessions (
    session_id TEXT PRIMARY KEY,
    expires_at TEXT NOT NULL
);
