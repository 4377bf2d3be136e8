// Package github is the home of the GitHub provider: its plugin folder (manifest.json, tools.json,
// logo.svg), its Go handlers, its connectors (connectors/github with its adapter in adapter.go,
// connectors/github-mcp) and its contract test (contract_test.go).
package github

import (
	"embed"

	"github.com/workbench/workbench/plugins"
)

//go:embed manifest.json tools.json logo.svg
var pluginFiles embed.FS

// Plugin is the github plugin folder as it ships with the server.
func Plugin() plugins.Builtin {
	return plugins.Builtin{Folder: "github", FS: pluginFiles, Handlers: handlers()}
}
