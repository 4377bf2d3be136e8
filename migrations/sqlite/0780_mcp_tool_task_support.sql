-- A listed tool's execution.taskSupport (MCP 2025-11-25 task augmentation): "required" tools are
-- offered as unavailable (Workbench does not run tasks yet). Empty when the listing gave none.
ALTER TABLE mcp_tools ADD COLUMN task_support TEXT NOT NULL DEFAULT '';
