package organization

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// MaxNameLen bounds the name of an organisation, a guild or an agent, in characters.
const MaxNameLen = 100

// Command is a request to change an organisation, one file per command. The interface is sealed so
// that Decide knows them all.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into the events it causes, or refuses it with a *domain.Error. It is pure:
// ids and times arrive in the command. What the command alone shows wrong is CodeInvalid; then an
// organisation that does not exist, or an actor who is not a member of it, is CodeNotFound (another
// organisation's ids are not disclosed); then a role that does not allow the change is CodeForbidden;
// then a transition the state does not allow is CodeConflict, or CodeNotFound for a guild, agent,
// member or invitation the organisation does not have.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

func checkTime(what string, t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: the command carries no time", what)
	}
	return t.UTC(), nil
}

func checkActor(what string, actor uuid.UUID) error {
	if actor == uuid.Nil {
		return domain.Errorf(domain.CodeInvalid, "%s: no actor", what)
	}
	return nil
}

// normalizeName trims a name and refuses an empty one, control characters, invalid UTF-8 and more
// than MaxNameLen characters.
func normalizeName(what, kind, name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", domain.Errorf(domain.CodeInvalid, "%s: the %s name is empty", what, kind)
	case !utf8.ValidString(name):
		return "", domain.Errorf(domain.CodeInvalid, "%s: the %s name is not valid UTF-8", what, kind)
	case utf8.RuneCountInString(name) > MaxNameLen:
		return "", domain.Errorf(domain.CodeInvalid, "%s: the %s name is %d characters long; at most %d are allowed", what, kind, utf8.RuneCountInString(name), MaxNameLen)
	case strings.ContainsFunc(name, unicode.IsControl):
		return "", domain.Errorf(domain.CodeInvalid, "%s: the %s name contains a control character", what, kind)
	}
	return name, nil
}

// member returns the actor's membership, or CodeNotFound when the organisation does not exist or the
// actor is not in it.
func (s State) member(what string, actor uuid.UUID) (Member, error) {
	if !s.Exists() {
		return Member{}, domain.Errorf(domain.CodeNotFound, "%s: no such organisation", what)
	}
	m, ok := s.Members[actor]
	if !ok {
		return Member{}, domain.Errorf(domain.CodeNotFound, "%s: no such organisation", what)
	}
	return m, nil
}

// selfOrManager returns the actor's membership when the actor acts on themselves or manages the
// organisation; refused names what only a manager may do to another member.
func (s State) selfOrManager(what string, actor, user uuid.UUID, refused string) (Member, error) {
	m, err := s.member(what, actor)
	if err != nil {
		return Member{}, err
	}
	if actor != user && !m.Role.manages() {
		return Member{}, domain.Errorf(domain.CodeForbidden, "%s: only an owner or an admin may %s", what, refused)
	}
	return m, nil
}

// manager returns the actor's membership when their role manages the organisation (owner or admin).
func (s State) manager(what string, actor uuid.UUID) (Member, error) {
	m, err := s.member(what, actor)
	if err != nil {
		return Member{}, err
	}
	if !m.Role.manages() {
		return Member{}, domain.Errorf(domain.CodeForbidden, "%s: only an owner or an admin may do this", what)
	}
	return m, nil
}

// liveGuild returns a guild that exists, or CodeNotFound.
func (s State) liveGuild(what string, id uuid.UUID) (Guild, error) {
	g, ok := s.Guild(id)
	if !ok {
		return Guild{}, domain.Errorf(domain.CodeNotFound, "%s: the organisation has no guild %s", what, id)
	}
	return g, nil
}

// liveAgent returns an agent that exists, or CodeNotFound.
func (s State) liveAgent(what string, id uuid.UUID) (Agent, error) {
	a, ok := s.Agent(id)
	if !ok {
		return Agent{}, domain.Errorf(domain.CodeNotFound, "%s: the organisation has no agent %s", what, id)
	}
	return a, nil
}

// agentActor returns the agent when the actor may manage it: its owner, or an owner or admin.
func (s State) agentActor(what string, actor, agentID uuid.UUID) (Agent, error) {
	m, err := s.member(what, actor)
	if err != nil {
		return Agent{}, err
	}
	a, err := s.liveAgent(what, agentID)
	if err != nil {
		return Agent{}, err
	}
	if a.OwnerID != actor && !m.Role.manages() {
		return Agent{}, domain.Errorf(domain.CodeForbidden, "%s: only the agent's owner, an owner or an admin may do this", what)
	}
	return a, nil
}

// guildAllowed checks that an agent owned by owner may sit in guild (uuid.Nil passes): the guild
// exists, and the owner is in it unless the owner manages the organisation. The actor's role does
// not widen this: an owner or admin moving a member's agent is held to the member's guilds, as the
// member creating it is.
func (s State) guildAllowed(what string, owner, guild uuid.UUID) error {
	if guild == uuid.Nil {
		return nil
	}
	g, err := s.liveGuild(what, guild)
	if err != nil {
		return err
	}
	if !g.Members[owner] && !s.Members[owner].Role.manages() {
		return domain.Errorf(domain.CodeForbidden, "%s: the agent's owner is not a member of guild %q", what, g.Name)
	}
	return nil
}

// nameTaken reports whether owner already has a live agent called name (compared without case).
func (s State) nameTaken(owner uuid.UUID, name string, except uuid.UUID) bool {
	for _, a := range s.Agents {
		if !a.Deleted && a.OwnerID == owner && a.ID != except && strings.EqualFold(a.Name, name) {
			return true
		}
	}
	return false
}

// guildNameTaken reports whether a live guild is called name (compared without case).
func (s State) guildNameTaken(name string, except uuid.UUID) bool {
	for _, g := range s.Guilds {
		if !g.Deleted && g.ID != except && strings.EqualFold(g.Name, name) {
			return true
		}
	}
	return false
}

// idOf is an id a command must carry, named for the error.
type idOf struct {
	kind string
	id   uuid.UUID
}

// checkCommand checks what every command carries: its actor, each id it names, and its time, which it
// returns in UTC.
func checkCommand(what string, actor uuid.UUID, at time.Time, ids ...idOf) (time.Time, error) {
	if err := checkActor(what, actor); err != nil {
		return time.Time{}, err
	}
	for _, id := range ids {
		if id.id == uuid.Nil {
			return time.Time{}, domain.Errorf(domain.CodeInvalid, "%s: no %s id", what, id.kind)
		}
	}
	return checkTime(what, at)
}
