package github

import (
	"embed"
	"io/fs"
)

//go:embed connectors/*/connector.json connectors/*/logo.svg
var connectorFiles embed.FS

// Connectors is the folder of the github (GitHub App REST, adapter only) and github-mcp (GitHub's remote MCP server) connectors: one folder per connector, named by its slug, holding its
// connector.json and logo.svg.
func Connectors() fs.FS {
	sub, err := fs.Sub(connectorFiles, "connectors")
	if err != nil {
		panic(err) // a constant, valid directory name
	}
	return sub
}
