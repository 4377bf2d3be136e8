-- Read models of the organizations projection (projections/organizations): organisations, their
-- members and pending invitations, guilds and their members, and agents, the principals credentials
-- act as. Ids are uuid text; times are UTC text in the fixed-width layout of internal/dbtime; flags are
-- 0 or 1. Deleted guilds and agents have no row.
CREATE TABLE organizations (
    org_id     TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    personal   INTEGER NOT NULL DEFAULT 0,
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX organizations_created_by ON organizations (created_by);

CREATE TABLE org_members (
    org_id   TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    email    TEXT NOT NULL,
    role     TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX org_members_user ON org_members (user_id);

CREATE TABLE org_invitations (
    org_id     TEXT NOT NULL,
    email      TEXT NOT NULL,
    role       TEXT NOT NULL,
    invited_by TEXT NOT NULL,
    invited_at TEXT NOT NULL,
    PRIMARY KEY (org_id, email)
);
CREATE INDEX org_invitations_email ON org_invitations (email);

CREATE TABLE guilds (
    guild_id   TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX guilds_org ON guilds (org_id);

CREATE TABLE guild_members (
    guild_id TEXT NOT NULL,
    user_id  TEXT NOT NULL,
    org_id   TEXT NOT NULL,
    added_at TEXT NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
CREATE INDEX guild_members_user ON guild_members (user_id);

CREATE TABLE agents (
    agent_id   TEXT PRIMARY KEY,
    org_id     TEXT NOT NULL,
    guild_id   TEXT,
    owner_id   TEXT NOT NULL,
    name       TEXT NOT NULL,
    is_default INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX agents_org ON agents (org_id);
CREATE INDEX agents_owner ON agents (owner_id);
