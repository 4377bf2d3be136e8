// Package connector is the write side of the connector catalog: a connector row is installed from its
// folder at boot (spec connectors.md, Where connectors come from). Each install replaces the manifest
// and source and keeps the switch, the OAuth client, the overrides and the tool prefix given at the
// first install. Stream: connector-<id>. The catalog's edits (catalog.go: the switch, the overrides,
// the rows added by hand) fold on the same stream; slugs and prefixes of rows added by hand are claimed
// on connector-catalog (slugs.go). A connector installed from the registry (InstallFromRegistry,
// registry.go) only ever creates its row: a second install of the slug is a conflict.
package connectordom

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/workbench/workbench/domain"
)

// TypeInstalled names the event in the log.
const TypeInstalled = "connector.installed"

// StreamName is a connector's stream.
func StreamName(id string) string { return "connector-" + id }

// Installed records a connector's manifest as its folder holds it.
type Installed struct {
	ID         string          `json:"id"`
	Slug       string          `json:"slug"`
	ToolPrefix string          `json:"tool_prefix"`
	Manifest   json.RawMessage `json:"manifest"`
	Digest     string          `json:"digest"`
	Source     string          `json:"source"`
	Version    string          `json:"version,omitempty"`
	Publisher  string          `json:"publisher,omitempty"`
	// Verified: the registry vouches for it (registry.go); a core folder is verified by being core.
	Verified bool      `json:"verified,omitempty"`
	At       time.Time `json:"at"`
}

func (Installed) EventType() string { return TypeInstalled }

// Events lists the event types, for a codec.
func Events() []domain.Event {
	return append([]domain.Event{Installed{}, ClientRegistered{}}, CatalogEvents()...)
}

// State is a connector stream folded.
type State struct {
	ID, ToolPrefix, Digest, Source string
	// Clients are the dynamic OAuth clients registered, kept across installs.
	Clients []ClientRegistered
	// Catalog is what the catalog edits fold (catalog.go).
	Catalog
}

// Initial is the state of no stream.
func Initial() State { return State{} }

// Evolve folds one event.
func Evolve(s State, e domain.Event) State {
	switch ev := e.(type) {
	case Installed:
		s.ID, s.ToolPrefix, s.Digest, s.Source = ev.ID, ev.ToolPrefix, ev.Digest, ev.Source
	case ClientRegistered:
		s.Clients = append(s.Clients, ev)
	default:
		s = evolveCatalog(s, e)
	}
	return s
}

// Install is the one command: record the folder's manifest. A manifest already installed with the same
// digest and source records nothing. The tool prefix of the first install is kept.
type Install struct {
	Event Installed
}

// Command is a command of a connector's stream: Install (a folder's manifest), InstallFromRegistry,
// RegisterClient (an OAuth client registered at an issuer) or a CatalogCommand (an admin's edit of
// the catalog row). The interface is sealed so that Decide knows them all: the stream has one
// aggregate and one decider.
type Command interface {
	decide(State) ([]domain.Event, error)
}

// Decide turns any command of a connector's stream into its events, or refuses it with a
// *domain.Error.
func Decide(s State, c Command) ([]domain.Event, error) {
	if c == nil {
		return nil, domain.Errorf(domain.CodeInvalid, "no command")
	}
	return c.decide(s)
}

func (c Install) decide(s State) ([]domain.Event, error) { return decideInstall(s, c) }

// decideInstall turns Install into its event.
func decideInstall(s State, c Install) ([]domain.Event, error) {
	ev := c.Event
	if !strings.HasPrefix(ev.ID, "mcp_") || ev.Slug == "" || ev.ID != "mcp_"+ev.Slug {
		return nil, domain.Errorf(domain.CodeInvalid, "install: id %q does not match slug %q", ev.ID, ev.Slug)
	}
	if len(ev.Manifest) == 0 || ev.Digest == "" || ev.At.IsZero() {
		return nil, domain.Errorf(domain.CodeInvalid, "install: no manifest, digest or time")
	}
	if s.ID != "" {
		if s.Digest == ev.Digest && s.Source == ev.Source {
			return nil, nil
		}
		ev.ToolPrefix = s.ToolPrefix
	}
	if ev.ToolPrefix == "" {
		return nil, domain.Errorf(domain.CodeInvalid, "install: no tool prefix")
	}
	return []domain.Event{ev}, nil
}
