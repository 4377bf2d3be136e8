package connectordom

import (
	"github.com/workbench/workbench/domain"
)

// SourceRegistry is the source of a connector an instance admin installed from the connector registry.
const SourceRegistry = "registry"

// InstallFromRegistry records a connector an instance admin installed from the registry. Unlike a
// folder's Install, which replaces its row's manifest at every boot, it only ever creates a row: the
// row is the event, so it survives restarts with no folder behind it, and a second install of the
// same slug is refused.
type InstallFromRegistry struct {
	Event Installed
}

func (c InstallFromRegistry) decide(s State) ([]domain.Event, error) { return decideRegistry(s, c) }

// decideRegistry turns InstallFromRegistry into its event: domain.CodeConflict when the connector
// already exists, naming its source.
func decideRegistry(s State, c InstallFromRegistry) ([]domain.Event, error) {
	ev := c.Event
	if s.ID != "" {
		return nil, domain.Errorf(domain.CodeConflict, "a connector with slug %q is already installed (source %s)", ev.Slug, s.Source)
	}
	if ev.Source != SourceRegistry {
		return nil, domain.Errorf(domain.CodeInvalid, "install from the registry: source is %q", ev.Source)
	}
	return Decide(s, Install{Event: ev})
}
