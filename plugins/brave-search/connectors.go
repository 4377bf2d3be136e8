package brave

import (
	"embed"
	"io/fs"

	"github.com/workbench/workbench/plugins/connector"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the brave connector (Brave Web Search, adapter only), as connector.ProviderFolder gives it.
func Connectors() fs.FS { return connector.ProviderFolder(connectorFiles) }
