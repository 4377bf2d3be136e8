-- Schema drift (projections/connectors): a tool's schema and annotations digest (login.SchemaSHA)
-- beside its description digest, and the one a switch turned On accepted. '' on rows written before:
-- a switch's empty digest is filled from the listing it accepted (see the projection), and a rebuild
-- fills both from the events.
ALTER TABLE mcp_tools ADD COLUMN schema_sha TEXT NOT NULL DEFAULT '';
ALTER TABLE mcp_tool_switches ADD COLUMN schema_sha TEXT NOT NULL DEFAULT '';
