package github

import (
	"embed"
	"io/fs"

	"github.com/workbench/workbench/plugins/connector"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the github (GitHub App REST, adapter only) and github-mcp (GitHub's
// remote MCP server) connectors, as connector.ProviderFolder gives it.
func Connectors() fs.FS { return connector.ProviderFolder(connectorFiles) }
