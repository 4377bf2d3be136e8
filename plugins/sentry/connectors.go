package sentry

import (
	"embed"
	"io/fs"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the sentry connector (Sentry's hosted MCP server): one folder per connector, named by its slug, holding its
// connector.json and logo.svg.
func Connectors() fs.FS {
	sub, err := fs.Sub(connectorFiles, "connectors")
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}
