// Package todoist is the home of the Todoist provider: its connector folder (connectors/todoist) and
// the connector's Go adapter (adapter.go). Todoist has no plugin.
package todoist

import (
	"embed"
	"io/fs"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the todoist connector (Todoist's REST API, adapter only): one folder per connector, named by its slug, holding its
// connector.json and logo.svg.
func Connectors() fs.FS {
	sub, err := fs.Sub(connectorFiles, "connectors")
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}
