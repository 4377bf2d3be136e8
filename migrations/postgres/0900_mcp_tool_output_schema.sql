-- A remote tool's listed outputSchema (projections/connectorsrm), as JSON; '' when the listing gave none
-- or was recorded before it was kept.
ALTER TABLE mcp_tools ADD COLUMN output_schema TEXT NOT NULL DEFAULT '';
