-- Several accounts per connector login owner (projections/connectorsrm): a login row names its account
-- label ('default' for every login made before labels existed, and for the rows a replica of the
-- previous release writes during a rolling upgrade), and an owner holds one login per connector and
-- account.
ALTER TABLE mcp_connections ADD COLUMN account TEXT NOT NULL DEFAULT 'default';
ALTER TABLE mcp_connections DROP CONSTRAINT mcp_connections_server_id_owner_scope_owner_id_key;
ALTER TABLE mcp_connections ADD CONSTRAINT mcp_connections_account_key UNIQUE (server_id, owner_scope, owner_id, account);
