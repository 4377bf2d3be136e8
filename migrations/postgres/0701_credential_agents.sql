-- The agent a credential acts as (domain/organization). NULL on rows written before agents existed:
-- readers resolve NULL to the owner's default agent (organization.DefaultAgentID), so no row is
-- rewritten on upgrade, and a rebuild of the identity and oauth read models fills the column from the
-- events, where an absent agent means the same default.
ALTER TABLE api_keys ADD COLUMN agent_id TEXT;
ALTER TABLE oauth_grants ADD COLUMN agent_id TEXT;
