package sentry

import (
	"embed"
	"io/fs"

	"github.com/workbench/workbench/plugins/connector"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the sentry connector (Sentry's hosted MCP server), as connector.ProviderFolder gives it.
func Connectors() fs.FS { return connector.ProviderFolder(connectorFiles) }
