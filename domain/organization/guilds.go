package organization

import (
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// CreateGuild adds a guild (owners and admins). Guild names are unique in the organisation, without
// case.
type CreateGuild struct {
	Actor   uuid.UUID
	GuildID uuid.UUID
	Name    string
	At      time.Time
}

func (c CreateGuild) decide(s State) ([]domain.Event, error) {
	const what = "create guild"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"guild", c.GuildID})
	if err != nil {
		return nil, err
	}
	name, err := normalizeName(what, "guild", c.Name)
	if err != nil {
		return nil, err
	}
	if _, err := s.manager(what, c.Actor); err != nil {
		return nil, err
	}
	if _, used := s.Guilds[c.GuildID]; used {
		return nil, domain.Errorf(domain.CodeConflict, "%s: guild id %s was already used", what, c.GuildID)
	}
	if s.guildNameTaken(name, uuid.Nil) {
		return nil, domain.Errorf(domain.CodeConflict, "%s: a guild is already called %q", what, name)
	}
	return []domain.Event{GuildCreated{OrganizationID: s.ID, GuildID: c.GuildID, Name: name, CreatedBy: c.Actor, At: at}}, nil
}

// RenameGuild renames a guild (owners and admins).
type RenameGuild struct {
	Actor   uuid.UUID
	GuildID uuid.UUID
	Name    string
	At      time.Time
}

func (c RenameGuild) decide(s State) ([]domain.Event, error) {
	const what = "rename guild"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	name, err := normalizeName(what, "guild", c.Name)
	if err != nil {
		return nil, err
	}
	if _, err := s.manager(what, c.Actor); err != nil {
		return nil, err
	}
	g, err := s.liveGuild(what, c.GuildID)
	if err != nil {
		return nil, err
	}
	if g.Name == name {
		return nil, nil
	}
	if s.guildNameTaken(name, g.ID) {
		return nil, domain.Errorf(domain.CodeConflict, "%s: a guild is already called %q", what, name)
	}
	return []domain.Event{GuildRenamed{OrganizationID: s.ID, GuildID: g.ID, Name: name, RenamedBy: c.Actor, At: at}}, nil
}

// DeleteGuild removes a guild (owners and admins); its agents move to no guild.
type DeleteGuild struct {
	Actor   uuid.UUID
	GuildID uuid.UUID
	At      time.Time
}

func (c DeleteGuild) decide(s State) ([]domain.Event, error) {
	const what = "delete guild"
	at, err := checkCommand(what, c.Actor, c.At)
	if err != nil {
		return nil, err
	}
	if _, err := s.manager(what, c.Actor); err != nil {
		return nil, err
	}
	g, err := s.liveGuild(what, c.GuildID)
	if err != nil {
		return nil, err
	}
	var evs []domain.Event
	for _, id := range sortedAgentIDs(s) {
		if a := s.Agents[id]; !a.Deleted && a.GuildID == g.ID {
			evs = append(evs, AgentMoved{OrganizationID: s.ID, AgentID: id, MovedBy: c.Actor, At: at})
		}
	}
	return append(evs, GuildDeleted{OrganizationID: s.ID, GuildID: g.ID, DeletedBy: c.Actor, At: at}), nil
}

// AddGuildMember puts an organisation member in a guild (owners and admins). Adding again decides
// nothing.
type AddGuildMember struct {
	Actor   uuid.UUID
	GuildID uuid.UUID
	UserID  uuid.UUID
	At      time.Time
}

func (c AddGuildMember) decide(s State) ([]domain.Event, error) {
	const what = "add guild member"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"user", c.UserID})
	if err != nil {
		return nil, err
	}
	if _, err := s.manager(what, c.Actor); err != nil {
		return nil, err
	}
	g, err := s.liveGuild(what, c.GuildID)
	if err != nil {
		return nil, err
	}
	if _, ok := s.Members[c.UserID]; !ok {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: user %s is not a member of the organisation", what, c.UserID)
	}
	if g.Members[c.UserID] {
		return nil, nil
	}
	return []domain.Event{GuildMemberAdded{OrganizationID: s.ID, GuildID: g.ID, UserID: c.UserID, AddedBy: c.Actor, At: at}}, nil
}

// RemoveGuildMember takes a member out of a guild (owners and admins, or the member themselves); their
// agents in the guild move to no guild.
type RemoveGuildMember struct {
	Actor   uuid.UUID
	GuildID uuid.UUID
	UserID  uuid.UUID
	At      time.Time
}

func (c RemoveGuildMember) decide(s State) ([]domain.Event, error) {
	const what = "remove guild member"
	at, err := checkCommand(what, c.Actor, c.At, idOf{"user", c.UserID})
	if err != nil {
		return nil, err
	}
	if _, err := s.selfOrManager(what, c.Actor, c.UserID, "take another member out of a guild"); err != nil {
		return nil, err
	}
	g, err := s.liveGuild(what, c.GuildID)
	if err != nil {
		return nil, err
	}
	if !g.Members[c.UserID] {
		return nil, domain.Errorf(domain.CodeNotFound, "%s: user %s is not a member of guild %q", what, c.UserID, g.Name)
	}
	var evs []domain.Event
	for _, id := range sortedAgentIDs(s) {
		if a := s.Agents[id]; !a.Deleted && a.GuildID == g.ID && a.OwnerID == c.UserID {
			evs = append(evs, AgentMoved{OrganizationID: s.ID, AgentID: id, MovedBy: c.Actor, At: at})
		}
	}
	return append(evs, GuildMemberRemoved{OrganizationID: s.ID, GuildID: g.ID, UserID: c.UserID, RemovedBy: c.Actor, At: at}), nil
}
