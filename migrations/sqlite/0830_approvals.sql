-- Approvals of calls held back by a switch set to Ask (projections/approvalsrm): the portal's inbox
-- reads the approvals waiting for a user's decision.
CREATE TABLE approvals (
    approval_id  TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL,
    agent_id     TEXT NOT NULL DEFAULT '',
    tool         TEXT NOT NULL,
    integration  TEXT NOT NULL,
    status       TEXT NOT NULL,
    requested_at TEXT NOT NULL,
    expires_at   TEXT NOT NULL
);
CREATE INDEX approvals_user_status ON approvals (user_id, status, expires_at);
