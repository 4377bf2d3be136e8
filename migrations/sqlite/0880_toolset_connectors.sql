-- The connectors whose resources and prompts a toolset serves (projections/toolsetsrm), as a JSON array.
ALTER TABLE toolsets ADD COLUMN connectors TEXT NOT NULL DEFAULT '[]';
