package main

import (
	"io/fs"
	"os"

	"github.com/workbench/workbench/internal/config"
)

// connectorRegistry is the connector registry's directory (CONNECTOR_REGISTRY_DIR, checked at start
// by internal/config), read afresh at each listing and install; nil when none is set.
func connectorRegistry(r config.ConnectorRegistry) fs.FS {
	if r.Dir == "" {
		return nil
	}
	return os.DirFS(r.Dir)
}
