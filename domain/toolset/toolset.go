// Package toolset is a curated list of tools an organisation, a guild or an agent serves as a plain
// MCP endpoint (/mcp/ts/{name}): tools by name, or by a pattern ending in "*", from any integration or
// connector, each optionally pinned to an account. A toolset is a stream (StreamName) whose events
// are its versions: every save is a new version, a deletion ends it.
package toolset

import (
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/workbench/workbench/domain"
)

// Event type names, never changed once stored.
const (
	TypeSaved   = "toolset.saved"
	TypeDeleted = "toolset.deleted"
)

// MaxEntries bounds a toolset's entries.
const MaxEntries = 200

// Owner is the scope a toolset belongs to.
type Owner struct {
	Scope string    `json:"scope"` // organization, guild or agent
	ID    uuid.UUID `json:"id"`
}

// Valid reports whether o can own toolsets.
func (o Owner) Valid() bool {
	return (o.Scope == "organization" || o.Scope == "guild" || o.Scope == "agent") && o.ID != uuid.Nil
}

var (
	nameRE      = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	patternRE   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}\*?$|^\*$`)
	accountRE   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,31}$`)
	connectorRE = regexp.MustCompile(`^mcp_[a-z0-9][a-z0-9_-]{0,127}$`)
)

// ValidName reports whether name can name a toolset (1 to 63 of a-z, 0-9 and '-', starting with a
// letter or digit).
func ValidName(name string) bool { return nameRE.MatchString(name) }

// StreamName is the stream of one toolset.
func StreamName(o Owner, name string) string {
	return "toolset-" + o.Scope + "-" + o.ID.String() + "-" + name
}

// Entry is one line of a toolset: a tool's exact name, or a prefix ending in "*" ("github_*", or "*"
// for every tool), and the account label its calls use (empty: the default account). In a mirror
// toolset an entry names the remote's own tool names, and a mirror toolset without entries serves
// every tool of its connector.
type Entry struct {
	Tool    string `json:"tool"`
	Account string `json:"account,omitempty"`
}

// Matches reports whether the entry names tool.
func (e Entry) Matches(tool string) bool {
	if p, ok := strings.CutSuffix(e.Tool, "*"); ok {
		return strings.HasPrefix(tool, p)
	}
	return e.Tool == tool
}

// Saved is a toolset's new version.
type Saved struct {
	Owner       Owner   `json:"owner"`
	Name        string  `json:"name"`
	Description string  `json:"description,omitempty"`
	Entries     []Entry `json:"entries"`
	// Connectors are the connectors (server ids) whose resources and prompts the toolset serves.
	Connectors []string `json:"connectors,omitempty"`
	// Mirror serves the toolset's one connector whole under the remote's own names: its tools are
	// listed and called by the names the remote gives them (entries, if any, name those), its
	// resources and prompts keep their URIs and names. One connector cannot collide with itself, so
	// nothing needs a namespace. Absent in events saved before it existed (false).
	Mirror  bool      `json:"mirror,omitempty"`
	Version int       `json:"version"`
	By      string    `json:"by,omitempty"`
	At      time.Time `json:"at"`
}

// Deleted ends a toolset.
type Deleted struct {
	Owner Owner     `json:"owner"`
	Name  string    `json:"name"`
	By    string    `json:"by,omitempty"`
	At    time.Time `json:"at"`
}

func (Saved) EventType() string   { return TypeSaved }
func (Deleted) EventType() string { return TypeDeleted }

// Events lists the event types, for a codec.
func Events() []domain.Event { return []domain.Event{Saved{}, Deleted{}} }

// State is a toolset's stream folded: its latest version, Version 0 when none (or deleted).
type State struct {
	Current Saved
	Last    int // the highest version ever saved, so a toolset made again continues its numbering
}

// Initial is the state of an empty stream.
func Initial() State { return State{} }

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Saved:
		s.Current, s.Last = ev, ev.Version
	case Deleted:
		s.Current = Saved{}
	}
	return s
}

// Command is Save or Delete.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns a command into events or refuses it with a *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

// Save writes a new version of a toolset (its first one makes it).
type Save struct {
	Owner       Owner
	Name        string
	Description string
	Entries     []Entry
	Connectors  []string
	Mirror      bool
	By          string
	At          time.Time
}

func (c Save) decide(s State) ([]domain.Event, error) {
	if !c.Owner.Valid() {
		return nil, domain.Errorf(domain.CodeInvalid, "a toolset belongs to an organization, a guild or an agent, with its id")
	}
	if !nameRE.MatchString(c.Name) {
		return nil, domain.Errorf(domain.CodeInvalid, "%q is not a toolset name: 1 to 63 of a-z, 0-9 and '-', starting with a letter or digit", c.Name)
	}
	if len(c.Description) > 1000 {
		return nil, domain.Errorf(domain.CodeInvalid, "a toolset's description is at most 1000 characters")
	}
	if len(c.Entries)+len(c.Connectors) == 0 || len(c.Entries) > MaxEntries || len(c.Connectors) > MaxEntries {
		return nil, domain.Errorf(domain.CodeInvalid, "a toolset names 1 to %d tools or patterns, or connectors whose resources and prompts it serves", MaxEntries)
	}
	for _, id := range c.Connectors {
		if !connectorRE.MatchString(id) {
			return nil, domain.Errorf(domain.CodeInvalid, "%q is not a connector id (mcp_<slug>)", id)
		}
	}
	seen := map[string]bool{}
	for _, e := range c.Entries {
		if !patternRE.MatchString(e.Tool) {
			return nil, domain.Errorf(domain.CodeInvalid, "%q is not a tool name or a pattern ending in '*'", e.Tool)
		}
		if e.Account != "" && !accountRE.MatchString(e.Account) {
			return nil, domain.Errorf(domain.CodeInvalid, "%q is not an account label", e.Account)
		}
		if seen[e.Tool] {
			return nil, domain.Errorf(domain.CodeInvalid, "%q is named twice", e.Tool)
		}
		seen[e.Tool] = true
	}
	if c.Mirror && len(c.Connectors) != 1 {
		return nil, domain.Errorf(domain.CodeInvalid, "a mirror toolset serves exactly one connector whole (connectors names it); it has %d", len(c.Connectors))
	}
	if c.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "save a toolset: no time")
	}
	if c.Entries == nil {
		c.Entries = []Entry{}
	}
	return []domain.Event{Saved{Owner: c.Owner, Name: c.Name, Description: c.Description, Entries: c.Entries, Connectors: c.Connectors, Mirror: c.Mirror, Version: s.Last + 1, By: c.By, At: c.At.UTC()}}, nil
}

// Delete ends a toolset.
type Delete struct {
	By string
	At time.Time
}

func (c Delete) decide(s State) ([]domain.Event, error) {
	if s.Current.Version == 0 {
		return nil, domain.Errorf(domain.CodeNotFound, "no such toolset")
	}
	return []domain.Event{Deleted{Owner: s.Current.Owner, Name: s.Current.Name, By: c.By, At: c.At.UTC()}}, nil
}
