-- The catalog in Admin and an organisation's own servers (projections/connectors): the catalog is read
-- per organisation (the platform's rows and its own), and removing a server finds the logins and the
-- switches that name it.
CREATE INDEX connectors_owner_org ON connectors (owner_org_id);
CREATE INDEX mcp_connections_server ON mcp_connections (server_id);
CREATE INDEX mcp_tool_switches_server ON mcp_tool_switches (server_id);
