package connectordom

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
)

// The catalog's edits (spec connectors.md, The catalog in Admin and An organisation's own servers):
// the instance admin's switch and overrides on any row, and the local rows an admin or an
// organisation adds by hand, edits and removes. Each lives on the connector's own stream.
const (
	TypeSwitched         = "connector.switched"
	TypeOverridesSet     = "connector.overrides_set"
	TypeToolOverridesSet = "connector.tool_overrides_set"
	TypeAdded            = "connector.added"
	TypeUpdated          = "connector.updated"
	TypeRemoved          = "connector.removed"
)

// SourceLocal is the source of a row made on this box (added by hand).
const SourceLocal = "local"

// Switched turns a connector on or off for the whole box.
type Switched struct {
	ID      string    `json:"id"`
	Enabled bool      `json:"enabled"`
	By      string    `json:"by"`
	At      time.Time `json:"at"`
}

func (Switched) EventType() string { return TypeSwitched }

// OverridesSet records the instance admin's copy edits of a connector: Fields are the keys the edit
// named (a null value cleared that key), Overrides the whole overrides document after the edit (null
// when none is left). The document's shape is plugins/connector.Overrides; the domain keeps it as JSON.
type OverridesSet struct {
	ID        string                     `json:"id"`
	Fields    map[string]json.RawMessage `json:"fields"`
	Overrides json.RawMessage            `json:"overrides"`
	By        string                     `json:"by"`
	At        time.Time                  `json:"at"`
}

func (OverridesSet) EventType() string { return TypeOverridesSet }

// ToolOverridesSet records the edit of one tool's overrides (overrides.tools[Tool]): Override is the
// tool's entry after the edit (null when it was cleared), Overrides the whole document after it.
type ToolOverridesSet struct {
	ID        string          `json:"id"`
	Tool      string          `json:"tool"`
	Override  json.RawMessage `json:"override"`
	Overrides json.RawMessage `json:"overrides"`
	By        string          `json:"by"`
	At        time.Time       `json:"at"`
}

func (ToolOverridesSet) EventType() string { return TypeToolOverridesSet }

// Added records a local row: a remote MCP server added by hand by the instance admin (OwnerOrgID
// empty: a platform connector) or by an organisation (its own server, visible to it alone). The
// manifest is the row's source of truth; it is on at creation.
type Added struct {
	ID         string          `json:"id"`
	Slug       string          `json:"slug"`
	ToolPrefix string          `json:"tool_prefix"`
	OwnerOrgID string          `json:"owner_org_id,omitempty"`
	Manifest   json.RawMessage `json:"manifest"`
	Digest     string          `json:"digest"`
	By         string          `json:"by"`
	At         time.Time       `json:"at"`
}

func (Added) EventType() string { return TypeAdded }

// Updated replaces a local row's manifest (its slug and prefix stay).
type Updated struct {
	ID       string          `json:"id"`
	Manifest json.RawMessage `json:"manifest"`
	Digest   string          `json:"digest"`
	By       string          `json:"by"`
	At       time.Time       `json:"at"`
}

func (Updated) EventType() string { return TypeUpdated }

// Removed deletes a local row. Its logins and the switches that name it are removed first, each by
// its own events (login.removed, toolswitch.cleared).
type Removed struct {
	ID         string    `json:"id"`
	OwnerOrgID string    `json:"owner_org_id,omitempty"`
	Reason     string    `json:"reason"`
	By         string    `json:"by"`
	At         time.Time `json:"at"`
}

func (Removed) EventType() string { return TypeRemoved }

// CatalogEvents lists the catalog edit event types, for a codec.
func CatalogEvents() []domain.Event {
	return []domain.Event{Switched{}, OverridesSet{}, ToolOverridesSet{}, Added{}, Updated{}, Removed{}, SlugClaimed{}, SlugReleased{}}
}

// Catalog is the part of a connector's state the catalog edits fold.
type Catalog struct {
	Slug       string
	OwnerOrgID string
	// Local: the row was added by hand (its manifest is edited here, not by a folder).
	Local    bool
	Disabled bool
	Removed  bool
	// Overrides is the current overrides document (nil when none).
	Overrides json.RawMessage
}

// evolveCatalog folds one catalog edit.
func evolveCatalog(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Added:
		s.ID, s.ToolPrefix, s.Digest, s.Source = ev.ID, ev.ToolPrefix, ev.Digest, SourceLocal
		s.Catalog = Catalog{Slug: ev.Slug, OwnerOrgID: ev.OwnerOrgID, Local: true}
	case Updated:
		s.Digest = ev.Digest
	case Switched:
		s.Disabled = !ev.Enabled
	case OverridesSet:
		s.Overrides = nullable(ev.Overrides)
	case ToolOverridesSet:
		s.Overrides = nullable(ev.Overrides)
	case Removed:
		s.Removed = true
	}
	return s
}

func nullable(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return b
}

// CatalogCommand is one edit of a catalog row, a Command of the connector's stream.
type CatalogCommand interface {
	Command
	isCatalogCommand()
}

// Add records a local row (the stream must hold no connector, or a removed one).
type Add struct{ Event Added }

// Update replaces a local row's manifest.
type Update struct{ Event Updated }

// Switch turns a row on or off.
type Switch struct{ Event Switched }

// SetOverrides writes the copy overrides of a row that is not local.
type SetOverrides struct{ Event OverridesSet }

// SetToolOverrides writes one tool's overrides.
type SetToolOverrides struct{ Event ToolOverridesSet }

// Remove deletes a local row.
type Remove struct{ Event Removed }

func (Add) isCatalogCommand()              {}
func (Update) isCatalogCommand()           {}
func (Switch) isCatalogCommand()           {}
func (SetOverrides) isCatalogCommand()     {}
func (SetToolOverrides) isCatalogCommand() {}
func (Remove) isCatalogCommand()           {}

func (c Add) decide(s State) ([]domain.Event, error)              { return decideCatalog(s, c) }
func (c Update) decide(s State) ([]domain.Event, error)           { return decideCatalog(s, c) }
func (c Switch) decide(s State) ([]domain.Event, error)           { return decideCatalog(s, c) }
func (c SetOverrides) decide(s State) ([]domain.Event, error)     { return decideCatalog(s, c) }
func (c SetToolOverrides) decide(s State) ([]domain.Event, error) { return decideCatalog(s, c) }
func (c Remove) decide(s State) ([]domain.Event, error)           { return decideCatalog(s, c) }

// Exists reports whether the stream holds a connector that was not removed.
func (s State) Exists() bool { return s.ID != "" && !s.Removed }

// decideCatalog turns a catalog edit into its events. An edit that changes nothing records nothing.
func decideCatalog(s State, c CatalogCommand) ([]domain.Event, error) {
	if a, ok := c.(Add); ok {
		ev := a.Event
		if s.Exists() {
			return nil, domain.Errorf(domain.CodeConflict, "connector %s exists", ev.ID)
		}
		if !strings.HasPrefix(ev.ID, "mcp_") || ev.Slug == "" || ev.ToolPrefix == "" || len(ev.Manifest) == 0 || ev.Digest == "" || ev.At.IsZero() {
			return nil, domain.Errorf(domain.CodeInvalid, "add: no id, slug, tool prefix, manifest, digest or time")
		}
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	}
	var id string
	switch c := c.(type) {
	case Update:
		id = c.Event.ID
	case Switch:
		id = c.Event.ID
	case SetOverrides:
		id = c.Event.ID
	case SetToolOverrides:
		id = c.Event.ID
	case Remove:
		id = c.Event.ID
	}
	if !s.Exists() || s.ID != id {
		return nil, domain.Errorf(domain.CodeNotFound, "no connector %q", id)
	}
	switch c := c.(type) {
	case Update:
		ev := c.Event
		if !s.Local {
			return nil, domain.Errorf(domain.CodeConflict, "%s is not a local row: its manifest comes from its source; edit its overrides", id)
		}
		if len(ev.Manifest) == 0 || ev.Digest == "" || ev.At.IsZero() {
			return nil, domain.Errorf(domain.CodeInvalid, "update: no manifest, digest or time")
		}
		if ev.Digest == s.Digest {
			return nil, nil
		}
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	case Switch:
		ev := c.Event
		if ev.Enabled == !s.Disabled {
			return nil, nil
		}
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	case SetOverrides:
		ev := c.Event
		if s.Local {
			return nil, domain.Errorf(domain.CodeConflict, "%s is a local row: edit its fields, not overrides", id)
		}
		if len(ev.Fields) == 0 || sameJSON(nullable(ev.Overrides), s.Overrides) {
			return nil, nil
		}
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	case SetToolOverrides:
		ev := c.Event
		if strings.TrimSpace(ev.Tool) == "" {
			return nil, domain.Errorf(domain.CodeInvalid, "tool overrides: no tool")
		}
		if sameJSON(nullable(ev.Overrides), s.Overrides) {
			return nil, nil
		}
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	case Remove:
		ev := c.Event
		if !s.Local {
			return nil, domain.Errorf(domain.CodeConflict, "%s came with the box or the registry; switch it off instead", id)
		}
		ev.OwnerOrgID = s.OwnerOrgID
		ev.At = ev.At.UTC()
		return []domain.Event{ev}, nil
	}
	return nil, domain.Errorf(domain.CodeInvalid, "unknown catalog command %T", c)
}

func sameJSON(a, b json.RawMessage) bool { return string(a) == string(b) }
