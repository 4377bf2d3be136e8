// Package todoist is the home of the Todoist provider: its connector folder (connectors/todoist) and
// the connector's Go adapter (adapter.go). Todoist has no plugin.
package todoist

import (
	"embed"
	"io/fs"

	"github.com/workbench/workbench/plugins/connector"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the todoist connector (Todoist's REST API, adapter only), as connector.ProviderFolder gives it.
func Connectors() fs.FS { return connector.ProviderFolder(connectorFiles) }
