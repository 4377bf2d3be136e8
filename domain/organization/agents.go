package organization

import (
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// CreateAgent adds an agent owned by the actor, in no guild or in a guild the actor belongs to (an
// owner or admin may use any guild). An owner's agent names are unique in the organisation, without
// case.
type CreateAgent struct {
	Actor   uuid.UUID
	AgentID uuid.UUID
	Name    string
	GuildID uuid.UUID // optional
	At      time.Time
}

func (c CreateAgent) decide(s State) ([]domain.Event, error) {
	const what = "create agent"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"agent", c.AgentID})
	if err != nil {
		return nil, err
	}
	name, err := normalizeName(what, "agent", c.Name)
	if err != nil {
		return nil, err
	}
	if _, err := s.member(what, c.Actor); err != nil {
		return nil, err
	}
	if err := s.guildAllowed(what, c.Actor, c.GuildID); err != nil {
		return nil, err
	}
	if _, used := s.Agents[c.AgentID]; used {
		return nil, domain.Errorf(domain.CodeConflict, "%s: agent id %s was already used", what, c.AgentID)
	}
	if s.nameTaken(c.Actor, name, uuid.Nil) {
		return nil, domain.Errorf(domain.CodeConflict, "%s: you already have an agent called %q", what, name)
	}
	return []domain.Event{AgentCreated{OrganizationID: s.ID, AgentID: c.AgentID, OwnerID: c.Actor, Name: name,
		GuildID: c.GuildID, CreatedBy: c.Actor, At: at}}, nil
}

// RenameAgent renames an agent (its owner, an owner or an admin).
type RenameAgent struct {
	Actor   uuid.UUID
	AgentID uuid.UUID
	Name    string
	At      time.Time
}

func (c RenameAgent) decide(s State) ([]domain.Event, error) {
	const what = "rename agent"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	name, err := normalizeName(what, "agent", c.Name)
	if err != nil {
		return nil, err
	}
	a, err := s.agentActor(what, c.Actor, c.AgentID)
	if err != nil {
		return nil, err
	}
	if a.Name == name {
		return nil, nil
	}
	if s.nameTaken(a.OwnerID, name, a.ID) {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the owner already has an agent called %q", what, name)
	}
	return []domain.Event{AgentRenamed{OrganizationID: s.ID, AgentID: a.ID, Name: name, RenamedBy: c.Actor, At: at}}, nil
}

// MoveAgent puts an agent in another guild or in none (its owner, an owner or an admin; the guild
// rule of CreateAgent applies to the agent's owner, whoever moves it).
type MoveAgent struct {
	Actor   uuid.UUID
	AgentID uuid.UUID
	GuildID uuid.UUID // uuid.Nil: no guild
	At      time.Time
}

func (c MoveAgent) decide(s State) ([]domain.Event, error) {
	const what = "move agent"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	a, err := s.agentActor(what, c.Actor, c.AgentID)
	if err != nil {
		return nil, err
	}
	if err := s.guildAllowed(what, a.OwnerID, c.GuildID); err != nil {
		return nil, err
	}
	if a.GuildID == c.GuildID {
		return nil, nil
	}
	return []domain.Event{AgentMoved{OrganizationID: s.ID, AgentID: a.ID, GuildID: c.GuildID, MovedBy: c.Actor, At: at}}, nil
}

// DeleteAgent retires an agent (its owner, an owner or an admin). The default agent stays.
type DeleteAgent struct {
	Actor   uuid.UUID
	AgentID uuid.UUID
	At      time.Time
}

func (c DeleteAgent) decide(s State) ([]domain.Event, error) {
	const what = "delete agent"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	a, err := s.agentActor(what, c.Actor, c.AgentID)
	if err != nil {
		return nil, err
	}
	if a.Default {
		return nil, domain.Errorf(domain.CodeConflict, "%s: the default agent cannot be deleted; credentials made before agents existed act as it", what)
	}
	return []domain.Event{AgentDeleted{OrganizationID: s.ID, AgentID: a.ID, DeletedBy: c.Actor, At: at}}, nil
}

// sortedAgentIDs lists the state's agent ids in a fixed order, so that a decision that touches
// several agents emits its events in the same order every time.
func sortedAgentIDs(s State) []uuid.UUID {
	ids := make([]uuid.UUID, 0, len(s.Agents))
	for id := range s.Agents {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
	return ids
}
