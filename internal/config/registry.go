package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// EnvConnectorRegistryDir names the connector registry an instance admin installs connectors from
// (spec connectors.md, Where connectors come from): a directory holding <slug>/connector.json folders
// or <slug>.json files, and optionally verified.txt, the slugs the registry vouches for, one a line.
// Unset or blank: no registry, and the registry routes answer an empty list.
const EnvConnectorRegistryDir = "CONNECTOR_REGISTRY_DIR"

// ConnectorRegistry is where the connector registry is read from.
type ConnectorRegistry struct {
	// Dir is an absolute directory; empty: none.
	Dir string
}

// readConnectorRegistry reads CONNECTOR_REGISTRY_DIR: it must name an existing, readable directory.
// Its entries are read at every listing and install (app/connectors registry.go), so a file added
// later needs no restart; a bad entry is shown with its problems, never a reason not to start.
func readConnectorRegistry(getenv func(string) string) (ConnectorRegistry, error) {
	dir := strings.TrimSpace(getenv(EnvConnectorRegistryDir))
	if dir == "" {
		return ConnectorRegistry{}, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	if !fi.IsDir() {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: not a directory; want a directory of <slug>/connector.json folders or <slug>.json files", EnvConnectorRegistryDir, dir)
	}
	if _, err := os.ReadDir(abs); err != nil {
		return ConnectorRegistry{}, fmt.Errorf("%s=%q: %w", EnvConnectorRegistryDir, dir, err)
	}
	return ConnectorRegistry{Dir: abs}, nil
}
