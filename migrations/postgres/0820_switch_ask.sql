-- A tool switch's third state, Ask (projections/connectorsrm): the tool is On, and every call waits
-- for a person's approval. Every switch set before it is not Ask.
ALTER TABLE mcp_tool_switches ADD COLUMN ask INTEGER NOT NULL DEFAULT 0;
