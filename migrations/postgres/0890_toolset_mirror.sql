-- Whether a toolset mirrors its one connector: serves its tools, resources and prompts under the remote's
-- own names (projections/toolsetsrm); 0 for every toolset saved before the flag existed.
ALTER TABLE toolsets ADD COLUMN mirror INTEGER NOT NULL DEFAULT 0;
