package identitydom

import "github.com/google/uuid"

// agentNamespace is the UUID version 5 namespace of the ids derived from a user id. It never changes:
// ids derived from it are stored in the log.
var agentNamespace = uuid.MustParse("5b0f3a8e-8d0c-4c55-9a51-3f0c2b7e7a10")

// DefaultAgentID is the id of a user's default agent (domain/organization), the agent in their
// personal organisation. A key event that names no agent (every key minted before agents existed, and
// every key of the default agent since) belongs to it; see domain/organization's doc.
func DefaultAgentID(userID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(agentNamespace, []byte("default-agent:"+userID.String()))
}

// eventAgent is the AgentID a key event records for agent: uuid.Nil for the default agent, so that the
// events of a user who never made a second agent look as they did before agents existed.
func eventAgent(user, agent uuid.UUID) uuid.UUID {
	if agent == DefaultAgentID(user) {
		return uuid.Nil
	}
	return agent
}

// keyAgent is the agent a key belongs to, with uuid.Nil read as the user's default agent.
func keyAgent(user, agent uuid.UUID) uuid.UUID {
	if agent == uuid.Nil {
		return DefaultAgentID(user)
	}
	return agent
}
